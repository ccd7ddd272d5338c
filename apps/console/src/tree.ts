import { allWorkspaces, api, V2, type Page, type Workspace } from "./api.js";
import { apiField, h, liveRegion, onSubmit, render } from "./dom.js";
import { orderedTree } from "./explorer.js";
import { groupMembers, listGroups } from "./manage.js";

interface Binding {
  role: { id: string; name?: string };
  subject: { id: string; type: string; group?: { name: string }; user?: { username: string } };
  resource: { id: string; name?: string | null };
  sources?: { id: string; type?: string; name?: string | null }[];
}

const FIELDS = "role(id,name),subject(id,type,group(name),user(username)),resource(id,name),sources(id,type,name)";
/** Per-node binding counts are fetched for this many workspaces at most. */
const MAX_COUNTED = 200;
/** Members named per group in a binding row (the rest are counted). */
const MAX_MEMBERS_SHOWN = 10;

const subjectName = (b: Binding): string => (b.subject.type === "group" ? `group ${b.subject.group?.name ?? b.subject.id}` : `user ${b.subject.user?.username ?? b.subject.id}`);

async function bindingsOn(ws: Workspace): Promise<{ direct: Binding[]; inherited: Binding[] }> {
  const rows = (await api<Page<Binding>>("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${ws.id}&limit=1000&fields=${encodeURIComponent(FIELDS)}`)).data;
  const isDirect = (b: Binding) => (b.sources ?? [b.resource]).some((s) => s.id === ws.id);
  return { direct: rows.filter(isDirect), inherited: rows.filter((b) => !isDirect(b)) };
}

/** The screen's state for one render: members by group, fetched once each. */
class Members {
  private readonly byGroup = new Map<string, Promise<string[]>>();
  of(groupId: string): Promise<string[]> {
    let pending = this.byGroup.get(groupId);
    if (!pending) {
      pending = groupMembers(groupId).catch(() => []);
      this.byGroup.set(groupId, pending);
    }
    return pending;
  }
}

async function bindingList(title: string, rows: Binding[], ws: Workspace, members: Members, revoke: ((b: Binding) => Promise<void>) | null): Promise<HTMLElement> {
  const items = await Promise.all(
    rows.map(async (b) => {
      const from = (b.sources ?? []).filter((s) => s.id !== ws.id).map((s) => s.name ?? s.id);
      const names = b.subject.type === "group" ? await members.of(b.subject.id) : [];
      const button = revoke ? h("button", { type: "button", class: "secondary", "aria-label": `Revoke ${b.role.name ?? b.role.id} from ${subjectName(b)}` }, "Revoke") : null;
      button?.addEventListener("click", () => {
        button.disabled = true;
        void revoke!(b);
      });
      return h(
        "li",
        {},
        h("strong", {}, subjectName(b)),
        ` holds ${b.role.name ?? b.role.id}`,
        from.length ? h("small", { class: "hint" }, ` inherited from ${from.join(", ")}`) : null,
        b.subject.type === "group"
          ? h(
              "small",
              { class: "members-line" },
              names.length === 0 ? "no members" : `members: ${names.slice(0, MAX_MEMBERS_SHOWN).join(", ")}${names.length > MAX_MEMBERS_SHOWN ? ` and ${names.length - MAX_MEMBERS_SHOWN} more` : ""}`,
            )
          : null,
        button ? [" ", button] : null,
      );
    }),
  );
  return h("section", {}, h("h3", {}, `${title} (${rows.length})`), rows.length === 0 ? h("p", { class: "meta" }, "None.") : h("ul", { class: "bindings" }, items));
}

/** Grant a role to a group on this workspace (roles offered are those assignable here). */
async function grantForm(ws: Workspace, done: () => Promise<void>): Promise<HTMLElement> {
  const [groups, roles] = await Promise.all([listGroups(), api<Page<{ id: string; name: string }>>("GET", `${V2}/roles/?limit=1000&resource_type=workspace&resource_id=${ws.id}`)]);
  const group = h(
    "select",
    { required: true },
    h("option", { value: "" }, "Choose a group"),
    groups.map((g) => h("option", { value: g.uuid }, g.name)),
  );
  const role = h(
    "select",
    { required: true },
    h("option", { value: "" }, "Choose a role"),
    roles.data.map((r) => h("option", { value: r.id }, r.name)),
  );
  const errors = h("div", {});
  const form = h(
    "form",
    { class: "grant-form", "aria-labelledby": "grant-h" },
    h("h3", { id: "grant-h" }, `Grant a role on ${ws.name}`),
    apiField("Group", group, "subject"),
    apiField("Role", role, "role"),
    h("button", { type: "submit" }, "Grant"),
    errors,
  );
  onSubmit(form, errors, async () => {
    await api("POST", `${V2}/role-bindings:batchCreate/`, { requests: [{ resource: { type: "workspace", id: ws.id }, subject: { type: "group", id: group.value }, role: { id: role.value } }] });
    await done();
  });
  return form;
}

/** Create a child, rename, move and delete (standard workspaces only for the last three). */
function workspaceForms(ws: Workspace, workspaces: Workspace[], done: (selectId: string | null) => Promise<void>): HTMLElement {
  const childName = h("input", { autocomplete: "off", required: true });
  const childErrors = h("div", {});
  const child = h(
    "form",
    { class: "inline-form", "aria-label": `New workspace under ${ws.name}` },
    apiField("New workspace under this one", childName, "name"),
    h("button", { type: "submit" }, "Create workspace"),
    childErrors,
  );
  onSubmit(child, childErrors, async () => {
    const created = await api<Workspace>("POST", `${V2}/workspaces/`, { name: childName.value.trim(), parent_id: ws.id });
    await done(created.id);
  });
  if (ws.type !== "standard") return h("div", { class: "ws-actions" }, child);

  const newName = h("input", { autocomplete: "off", required: true, value: ws.name });
  const renameErrors = h("div", {});
  const rename = h("form", { class: "inline-form", "aria-label": `Rename ${ws.name}` }, apiField("Name", newName, "name"), h("button", { type: "submit" }, "Rename"), renameErrors);
  onSubmit(rename, renameErrors, async () => {
    await api("PATCH", `${V2}/workspaces/${ws.id}/`, { name: newName.value.trim() });
    await done(ws.id);
  });

  const parent = h(
    "select",
    {},
    orderedTree(workspaces)
      .filter(({ ws: w }) => w.id !== ws.id && w.type !== "root")
      .map(({ ws: w, depth }) => h("option", { value: w.id, selected: w.id === ws.parent_id }, `${"\u00a0\u00a0".repeat(depth)}${w.name}`)),
  );
  const moveErrors = h("div", {});
  const move = h("form", { class: "inline-form", "aria-label": `Move ${ws.name}` }, apiField("Parent", parent, "parent_id"), h("button", { type: "submit" }, "Move"), moveErrors);
  onSubmit(move, moveErrors, async () => {
    await api("POST", `${V2}/workspaces/${ws.id}/move/`, { parent_id: parent.value });
    await done(ws.id);
  });

  const removeErrors = h("div", {});
  const remove = h("form", { class: "inline-form", "aria-label": `Delete ${ws.name}` }, h("button", { type: "submit", class: "danger" }, `Delete ${ws.name}`), removeErrors);
  onSubmit(remove, removeErrors, async () => {
    await api("DELETE", `${V2}/workspaces/${ws.id}/`);
    await done(ws.parent_id);
  });
  return h("div", { class: "ws-actions" }, child, rename, move, remove);
}

export async function treeScreen(main: HTMLElement, query: { workspace?: string } = {}): Promise<void> {
  const status = liveRegion();
  const detail = h("div", { class: "card node-detail", id: "node-detail" }, h("p", { class: "meta" }, "Select a workspace to see who can do what there, and to change it."));
  const list = h("ul", { class: "ws-tree", "aria-label": "Workspaces" });
  render(
    main,
    h("h1", {}, "Workspace tree"),
    h("p", { class: "lede" }, "Grants inherit downward only: a binding reaches its workspace and everything below it."),
    status,
    h("div", { class: "split" }, h("div", { class: "card" }, list), detail),
  );
  status.textContent = "Loading…";
  const workspaces = await allWorkspaces();
  const ordered = orderedTree(workspaces);
  const counts = new Map<string, { direct: Binding[]; inherited: Binding[] }>();
  await Promise.all(ordered.slice(0, MAX_COUNTED).map(async ({ ws }) => counts.set(ws.id, await bindingsOn(ws))));
  status.textContent = "";
  const members = new Members();
  const again = async (selectId: string | null, message: string) => {
    await treeScreen(main, selectId ? { workspace: selectId } : {});
    const region = main.querySelector<HTMLElement>("[role=status]");
    if (region) region.textContent = message;
  };

  const select = async (ws: Workspace, button: HTMLButtonElement) => {
    for (const b of list.querySelectorAll("button[aria-pressed]")) b.setAttribute("aria-pressed", "false");
    button.setAttribute("aria-pressed", "true");
    history.replaceState(null, "", `#/tree?workspace=${ws.id}`);
    const bindings = counts.get(ws.id) ?? (await bindingsOn(ws));
    const revoke = async (b: Binding) => {
      // by-subject PUT replaces the subject's roles here: the ones it keeps.
      const keep = bindings.direct.filter((x) => x.subject.id === b.subject.id && x.role.id !== b.role.id).map((x) => ({ id: x.role.id }));
      const q = new URLSearchParams({ resource_type: "workspace", resource_id: ws.id, subject_type: b.subject.type, subject_id: b.subject.id });
      await api("PUT", `${V2}/role-bindings/by-subject/?${q.toString()}`, { roles: keep });
      await again(ws.id, `Revoked ${b.role.name ?? b.role.id} from ${subjectName(b)}.`);
    };
    render(
      detail,
      h("h2", {}, ws.name),
      h("p", { class: "meta" }, `${ws.type} workspace · ${ws.id}`),
      await bindingList("Direct role bindings", bindings.direct, ws, members, revoke),
      await bindingList("Inherited role bindings", bindings.inherited, ws, members, null),
      await grantForm(ws, () => again(ws.id, "Granted.")),
      h("h3", {}, "Workspace"),
      workspaceForms(ws, workspaces, (id) => again(id, "Saved.")),
    );
  };
  let chosen: { ws: Workspace; button: HTMLButtonElement } | null = null;
  for (const { ws, depth } of ordered) {
    const c = counts.get(ws.id);
    const button = h(
      "button",
      { type: "button", class: "node", "aria-pressed": "false", "data-depth": depth },
      h("span", { class: "ws-name" }, ws.name),
      c ? h("small", { class: "hint" }, ` ${c.direct.length} direct · ${c.inherited.length} inherited`) : null,
    );
    button.addEventListener("click", () => void select(ws, button));
    list.append(h("li", { class: `depth-${Math.min(depth, 6)}` }, button));
    if (ws.id === query.workspace) chosen = { ws, button };
  }
  if (chosen) await select(chosen.ws, chosen.button);
}
