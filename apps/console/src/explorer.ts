import { allWorkspaces, api, V1, V2, type ApiCall, type Page, type Workspace } from "./api.js";
import { field, h, liveRegion, render, uid } from "./dom.js";
import { fixPanel, undoView, type Fix } from "./fix.js";

interface Permission {
  name: string;
  v1: string[];
  pattern: number | null;
  pattern_name: string | null;
  checked_at: string | null;
}
interface NamedRef {
  type: string;
  id: string;
  name: string | null;
}
interface ExplainNode {
  kind: string;
  label: string;
  allowed: boolean;
  children: ExplainNode[];
}
interface Explanation {
  allowed: boolean;
  revision: number;
  subject: NamedRef;
  resource: NamedRef;
  permission: Permission & { checked_at_label: string | null };
  grants: { grants: string; role: NamedRef; bound_at: NamedRef; via_group: NamedRef | null; inherited_through: NamedRef[] }[];
  summary: string;
  evaluator_summary: string;
  fixes: Fix[];
  tree: ExplainNode;
}

export interface ExplorerQuery {
  subject?: string;
  permission?: string;
  resource?: string;
}

const nameOf = (ref: NamedRef): string => ref.name ?? ref.id;

/** `workspace:<id>`-style form values ↔ request objects. */
function splitRef(value: string): { type: string; id: string } {
  const at = value.indexOf(":");
  return { type: value.slice(0, at), id: value.slice(at + 1) };
}

/** The evaluator's raw tree, built only when asked for (it can be thousands of nodes). */
function treeView(node: ExplainNode, budget = { left: 300 }): HTMLElement {
  budget.left--;
  const item = h("li", {}, h("span", { class: node.allowed ? "yes" : "no" }, node.allowed ? "✓ " : "✗ "), h("code", {}, node.label));
  if (node.children.length > 0 && budget.left > 0)
    item.append(
      h(
        "ul",
        {},
        node.children.map((c) => treeView(c, budget)),
      ),
    );
  return item;
}

/** A toggle that builds the raw tree on first open. */
export function rawTree(summary: string, tree: ExplainNode): HTMLElement {
  const body = h("div", { class: "tree-scroll", tabindex: 0, role: "region", "aria-label": "Raw evaluation tree" });
  const details = h("details", { class: "raw-tree" }, h("summary", {}, "Raw evaluation tree"), h("p", { class: "meta" }, summary), body);
  details.addEventListener("toggle", () => {
    if (details.open && !body.firstChild) body.append(h("ul", { class: "tree-view" }, treeView(tree)));
  });
  return details;
}

/** Each grant as one named chain: user → group → role binding → role → workspace → … → target. */
export function pathView(result: Pick<Explanation, "grants" | "subject">): HTMLElement {
  if (result.grants.length === 0) return h("p", {}, "No role binding grants it.");
  const step = (kind: string, name: string) => h("li", { class: "step" }, h("span", { class: "kind" }, kind), " ", name);
  return h(
    "div",
    { role: "list", "aria-label": "Access path" },
    result.grants.map((g) =>
      h(
        "ol",
        { class: "path", role: "listitem", "aria-label": `Path through ${nameOf(g.role)}` },
        step(result.subject.type === "group" ? "members of" : "user", nameOf(result.subject)),
        g.via_group ? step("group", nameOf(g.via_group)) : null,
        step("role binding", `(${nameOf(g.role)})`),
        step(g.bound_at.type, nameOf(g.bound_at)),
        g.inherited_through.length > 1 ? g.inherited_through.slice(1).map((w) => step(`inherited by ${w.type}`, nameOf(w))) : null,
        h("li", { class: "grants" }, h("small", { class: "hint" }, `grants ${g.grants}`)),
      ),
    ),
  );
}

function checkLevelLine(p: Explanation["permission"], resource: NamedRef): HTMLElement {
  if (p.pattern === null) return h("p", {}, "This permission's application is not classified: its check level is unknown.");
  if (p.pattern <= 2) return h("p", {}, `This application uses Pattern ${p.pattern} (${p.pattern_name}): it checks each resource in its own workspace (here ${resource.type} ${nameOf(resource)}).`);
  return h("p", {}, `This application uses Pattern ${p.pattern} (${p.pattern_name}) and checks at the ${p.checked_at_label}.`);
}

function resultView(result: Explanation, fixed: (undo: ApiCall[]) => Promise<void>): HTMLElement {
  const p = result.permission;
  return h(
    "section",
    { class: "card result", "aria-labelledby": "result-heading" },
    h("h2", { id: "result-heading" }, h("span", { class: `verdict ${result.allowed ? "allowed" : "denied"}` }, result.allowed ? "ALLOWED" : "DENIED")),
    h(
      "p",
      {},
      `${result.subject.type === "group" ? "Members of " : ""}${nameOf(result.subject)} · ${p.name}${p.v1.length ? ` (v1 ${p.v1.join(", ")})` : ""} · ${result.resource.type} ${nameOf(result.resource)}`,
    ),
    h("p", { class: "meta" }, `Evaluated at revision ${result.revision}`),
    h("h3", {}, result.allowed ? "Path" : "Why not"),
    result.allowed ? pathView(result) : h("p", { class: "summary" }, result.summary),
    checkLevelLine(p, result.resource),
    !result.allowed && result.fixes.length > 0 ? [h("h3", {}, "What would grant it"), fixPanel(result.fixes, fixed)] : null,
    rawTree(result.evaluator_summary, result.tree),
  );
}

export async function explorerScreen(main: HTMLElement, query: ExplorerQuery): Promise<void> {
  const status = liveRegion();
  render(main, h("h1", {}, "Access explorer"), h("p", { class: "lede" }, "Why can or can't this person do this? Pick a subject, a permission and a target."), status);
  status.textContent = "Loading…";
  const [permissions, users, groups, workspaces] = await Promise.all([
    api<Page<Permission>>("GET", `${V2}/access:permissions/`),
    api<Page<{ username: string; user_id: string | null }>>("GET", `${V2}/principals/?limit=1000`),
    api<Page<{ uuid: string; name: string }>>("GET", `${V1}/groups/?limit=1000`),
    allWorkspaces(),
  ]);
  status.textContent = "";

  const subjects = h("datalist", { id: uid("subjects") });
  const subjectValues = new Map<string, string>();
  for (const u of users.data) {
    const label = `user: ${u.username}`;
    subjectValues.set(label, `user:${u.user_id ?? u.username}`);
    subjects.append(h("option", { value: label }));
  }
  for (const g of groups.data) {
    const label = `group: ${g.name}`;
    subjectValues.set(label, `group:${g.uuid}`);
    subjects.append(h("option", { value: label }));
  }
  const perms = h(
    "datalist",
    { id: uid("permissions") },
    permissions.data.map((p) => h("option", { value: p.name }, p.v1.length ? `v1 ${p.v1.join(", ")}` : "")),
  );
  const subjectInput = h("input", { list: subjects.id, required: true, autocomplete: "off", placeholder: "user: carol" });
  const permissionInput = h("input", { list: perms.id, required: true, autocomplete: "off", placeholder: "patch_system_edit" });
  const v1Hint = h("small", { class: "hint", "aria-live": "polite" });
  permissionInput.addEventListener("input", () => {
    const p = permissions.data.find((x) => x.name === permissionInput.value.trim() || x.v1.includes(permissionInput.value.trim()));
    v1Hint.textContent = p ? `v1 form: ${p.v1.join(", ") || "none"}${p.checked_at ? ` · checked at ${p.checked_at}` : ""}` : "";
  });
  const targetSelect = h(
    "select",
    {},
    h("option", { value: "tenant:tenant" }, "Organization (tenant)"),
    orderedTree(workspaces).map(({ ws, depth }) => h("option", { value: `workspace:${ws.id}` }, `${"\u00a0\u00a0".repeat(depth)}${ws.name}`)),
    h("option", { value: "host:" }, "A host…"),
  );
  const hostInput = h("input", { placeholder: "host id", autocomplete: "off", hidden: true });
  const hostField = field("Host id", hostInput);
  hostField.hidden = true;
  targetSelect.addEventListener("change", () => {
    hostField.hidden = targetSelect.value !== "host:";
  });
  const output = h("div", { id: "explain-result" });
  const applied = h("div", { id: "fix-applied", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "card explorer-form", "aria-label": "Explain access" },
    subjects,
    perms,
    field("Subject (user or group)", subjectInput, "Type to search users and groups."),
    h("div", { class: "field" }, h("label", { for: (permissionInput.id = uid("f")) }, "Permission"), permissionInput, v1Hint),
    field("Target", targetSelect),
    hostField,
    h("button", { type: "submit" }, "Explain"),
  );
  hostInput.hidden = false;

  const run = async () => {
    const subjectValue = subjectValues.get(subjectInput.value.trim()) ?? subjectInput.value.trim();
    const target = targetSelect.value === "host:" ? `host:${hostInput.value.trim()}` : targetSelect.value;
    const resource = splitRef(target);
    status.textContent = "Explaining…";
    try {
      const result = await api<Explanation>("POST", `${V2}/access:explain/`, {
        subject: splitRef(subjectValue.includes(":") ? subjectValue : `user:${subjectValue}`),
        permission: permissionInput.value.trim(),
        // The tenant is the caller's own organisation.
        resource: resource.type === "tenant" ? { type: "tenant" } : resource,
      });
      render(
        output,
        resultView(result, async (undo) => {
          render(
            applied,
            undoView("Fix applied: the answer below is asked again.", undo, async () => {
              render(applied, h("p", { role: "status" }, "Fix undone: the answer below is asked again."));
              await run();
            }),
          );
          await run();
        }),
      );
      status.textContent = result.allowed ? "Allowed." : "Denied.";
    } catch (error) {
      render(output, h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error)));
      status.textContent = "";
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void run();
  });
  main.append(form, applied, output);

  // Prefilled from a link (the parity page opens a case here).
  if (query.subject && query.permission && query.resource) {
    const subject = splitRef(query.subject);
    const label = [...subjectValues].find(([, v]) => v === query.subject)?.[0];
    subjectInput.value = label ?? `${subject.type}: ${subject.id}`;
    if (!label) subjectValues.set(subjectInput.value, query.subject);
    permissionInput.value = query.permission;
    const r = splitRef(query.resource);
    if (r.type === "tenant") targetSelect.value = "tenant:tenant";
    else if (r.type === "workspace") targetSelect.value = query.resource;
    else {
      targetSelect.value = "host:";
      hostInput.value = r.id;
      hostField.hidden = false;
    }
    await run();
  } else {
    subjectInput.focus();
  }
}

/** Workspaces in tree order (parents before children), with their depth. */
export function orderedTree(workspaces: Workspace[]): { ws: Workspace; depth: number }[] {
  const children = new Map<string | null, Workspace[]>();
  for (const ws of workspaces) children.set(ws.parent_id, [...(children.get(ws.parent_id) ?? []), ws]);
  const ids = new Set(workspaces.map((w) => w.id));
  const out: { ws: Workspace; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const ws of (children.get(parent) ?? []).sort((a, b) => a.name.localeCompare(b.name))) {
      out.push({ ws, depth });
      walk(ws.id, depth + 1);
    }
  };
  for (const ws of workspaces) if (ws.parent_id === null || !ids.has(ws.parent_id)) walk(ws.parent_id, 0);
  return out.filter((x, i, all) => all.findIndex((y) => y.ws.id === x.ws.id) === i);
}
