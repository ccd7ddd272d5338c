// A front end as Red Hat's console applications write one: @project-kessel/react-kessel-access-check
// with ONE base URL, the page's own origin, for both the workspace lookup (/api/rbac/v2/) and the
// access checks (/api/kessel/v1beta2/). It shows each answer as JSON in an element the browser test
// reads, with data-state="done" once settled. The bulk items come from the query string
// (`?bulk=[{"id":…,"relation":…}]`); the single check asks `?relation=` on the default workspace.
import { AccessCheck, fetchDefaultWorkspace, useSelfAccessCheck, type SelfAccessCheckResourceWithRelation, type SelfAccessCheckError } from "@project-kessel/react-kessel-access-check";
import { type ComponentProps, createElement as h, useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";

const origin = window.location.origin;
const query = new URLSearchParams(window.location.search);
const rbac = (id: string) => ({ id, type: "workspace", reporter: { type: "rbac" } });

function Result(props: { id: string; done: boolean; value: unknown }) {
  return h("pre", { id: props.id, "data-state": props.done ? "done" : "loading" }, JSON.stringify(props.value));
}

function SingleCheck(props: { workspaceId: string; relation: string }) {
  // One resource object for the component's life: the hook re-runs its request whenever the
  // resource's `reporter` is another object, so a literal in the render would ask forever.
  const resource = useMemo(() => rbac(props.workspaceId), [props.workspaceId]);
  const { data, loading, error } = useSelfAccessCheck({ relation: props.relation, resource });
  return h(Result, { id: "single", done: !loading, value: error ? { error: error.code } : { allowed: data?.allowed } });
}

function BulkCheck(props: { items: [SelfAccessCheckResourceWithRelation, ...SelfAccessCheckResourceWithRelation[]] }) {
  const { data, loading, error } = useSelfAccessCheck({ resources: props.items });
  const value = error ? { error: error.code } : { items: (data ?? []).map((d) => ({ id: d.resource.id, relation: d.relation, allowed: d.allowed })) };
  return h(Result, { id: "bulk", done: !loading, value });
}

function App() {
  const [workspace, setWorkspace] = useState<{ id: string } | { error: number } | null>(null);
  useEffect(() => {
    fetchDefaultWorkspace(origin).then(
      (found) => setWorkspace({ id: found.id }),
      (failure: SelfAccessCheckError) => setWorkspace({ error: failure.code }),
    );
  }, []);
  const bulk = JSON.parse(query.get("bulk") ?? "[]") as { id: string; relation: string }[];
  const [first, ...rest] = bulk.map((item) => ({ ...rbac(item.id), relation: item.relation }));
  return h(
    "div",
    null,
    h(Result, { id: "default-workspace", done: workspace !== null, value: workspace }),
    workspace && "id" in workspace ? h(SingleCheck, { workspaceId: workspace.id, relation: query.get("relation") ?? "view" }) : null,
    first ? h(BulkCheck, { items: [first, ...rest] }) : null,
  );
}

// The children are createElement's third argument; the props type counts them among the props.
const provider = { baseUrl: origin, apiPath: "/api/kessel/v1beta2" } as ComponentProps<typeof AccessCheck.Provider>;
createRoot(document.getElementById("root")!).render(h(AccessCheck.Provider, provider, h(App)));
