// "Why can't I …?": any signed-in user asks about their own access (POST /access:explain-self/).
import { allWorkspaces, api, V2, type Page, type Workspace } from "./api.js";
import { apiField, h, liveRegion, onSubmit, render, uid } from "./dom.js";
import { orderedTree, pathView } from "./explorer.js";

interface SelfAnswer {
  allowed: boolean;
  revision: number;
  subject: { type: string; id: string; name: string | null };
  resource: { type: string; id: string; name: string | null };
  permission: { name: string; v1: string[] };
  grants: Parameters<typeof pathView>[0]["grants"];
  summary: string;
  ask: string[];
}

export async function selfServiceScreen(main: HTMLElement): Promise<void> {
  const status = liveRegion();
  render(main, h("h1", {}, "Why can't I …?"), h("p", { class: "lede" }, "Ask about your own access: the answer is about you only, ready to paste into a support ticket."), status);
  status.textContent = "Loading…";
  const [permissions, workspaces] = await Promise.all([
    api<Page<{ name: string; v1: string[] }>>("GET", `${V2}/access:permissions/`),
    // A user who may not list workspaces can still ask about the organisation.
    allWorkspaces().catch((): Workspace[] => []),
  ]);
  status.textContent = "";
  const perms = h(
    "datalist",
    { id: uid("my-permissions") },
    permissions.data.map((p) => h("option", { value: p.name }, p.v1.join(", "))),
  );
  const permission = h("input", { list: perms.id, required: true, autocomplete: "off", placeholder: "advisor_disable_recommendations_edit" });
  const target = h(
    "select",
    {},
    h("option", { value: "tenant:" }, "Organization (tenant)"),
    orderedTree(workspaces).map(({ ws, depth }) => h("option", { value: `workspace:${ws.id}` }, `${"\u00a0\u00a0".repeat(depth)}${ws.name}`)),
  );
  const errors = h("div", {});
  const output = h("div", { id: "self-result" });
  const form = h(
    "form",
    { class: "card explorer-form self-form", "aria-label": "Ask about my access" },
    perms,
    apiField("What I want to do (permission)", permission, "permission", "A v2 permission or its v1 form, e.g. advisor:disable-recommendations:write."),
    apiField("Where", target, "resource"),
    h("button", { type: "submit" }, "Why?"),
    errors,
  );
  main.append(form, output);
  onSubmit(form, errors, async () => {
    const [type, id] = target.value.split(":") as [string, string];
    status.textContent = "Asking…";
    const answer = await api<SelfAnswer>("POST", `${V2}/access:explain-self/`, { permission: permission.value.trim(), resource: type === "tenant" ? { type } : { type, id } });
    status.textContent = answer.allowed ? "Allowed." : "Denied.";
    render(
      output,
      h(
        "section",
        { class: "card result", "aria-labelledby": "self-heading" },
        h("h2", { id: "self-heading" }, h("span", { class: `verdict ${answer.allowed ? "allowed" : "denied"}` }, answer.allowed ? "ALLOWED" : "DENIED")),
        h("p", {}, `You (${answer.subject.name ?? answer.subject.id}) · ${answer.permission.name} · ${answer.resource.type} ${answer.resource.name ?? answer.resource.id}`),
        h("p", { class: "meta" }, `Evaluated at revision ${answer.revision}`),
        answer.allowed ? pathView(answer) : [h("h3", {}, "Why not"), h("p", { class: "summary" }, answer.summary)],
        answer.ask.length > 0
          ? [
              h("h3", {}, "What to ask for"),
              h(
                "ul",
                {},
                answer.ask.map((a) => h("li", {}, a)),
              ),
            ]
          : null,
      ),
    );
  });
  permission.focus();
}
