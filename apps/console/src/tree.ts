import { allWorkspaces, api, V2, type Page, type Workspace } from "./api.js";
import { h, liveRegion, render } from "./dom.js";
import { orderedTree } from "./explorer.js";

interface Binding {
  role: { id: string; name?: string };
  subject: { id: string; type: string; group?: { name: string }; user?: { username: string } };
  resource: { id: string; name?: string | null };
  sources?: { id: string; type?: string; name?: string | null }[];
}

const FIELDS = "role(id,name),subject(id,type,group(name),user(username)),resource(id,name),sources(id,type,name)";
/** Per-node binding counts are fetched for this many workspaces at most. */
const MAX_COUNTED = 200;

const subjectName = (b: Binding): string => (b.subject.type === "group" ? `group ${b.subject.group?.name ?? b.subject.id}` : `user ${b.subject.user?.username ?? b.subject.id}`);

async function bindingsOn(ws: Workspace): Promise<{ direct: Binding[]; inherited: Binding[] }> {
  const rows = (await api<Page<Binding>>("GET", `${V2}/role-bindings/?resource_type=workspace&resource_id=${ws.id}&limit=1000&fields=${encodeURIComponent(FIELDS)}`)).data;
  const isDirect = (b: Binding) => (b.sources ?? [b.resource]).some((s) => s.id === ws.id);
  return { direct: rows.filter(isDirect), inherited: rows.filter((b) => !isDirect(b)) };
}

function bindingList(title: string, rows: Binding[], ws: Workspace): HTMLElement {
  return h(
    "section",
    {},
    h("h3", {}, `${title} (${rows.length})`),
    rows.length === 0
      ? h("p", { class: "meta" }, "None.")
      : h(
          "ul",
          { class: "bindings" },
          rows.map((b) => {
            const from = (b.sources ?? []).filter((s) => s.id !== ws.id).map((s) => s.name ?? s.id);
            return h("li", {}, h("strong", {}, subjectName(b)), ` holds ${b.role.name ?? b.role.id}`, from.length ? h("small", { class: "hint" }, ` inherited from ${from.join(", ")}`) : null);
          }),
        ),
  );
}

export async function treeScreen(main: HTMLElement): Promise<void> {
  const status = liveRegion();
  const detail = h("div", { class: "card node-detail", id: "node-detail" }, h("p", { class: "meta" }, "Select a workspace to see who can do what there."));
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

  const select = async (ws: Workspace, button: HTMLButtonElement) => {
    for (const b of list.querySelectorAll("button[aria-pressed]")) b.setAttribute("aria-pressed", "false");
    button.setAttribute("aria-pressed", "true");
    const bindings = counts.get(ws.id) ?? (await bindingsOn(ws));
    render(
      detail,
      h("h2", {}, ws.name),
      h("p", { class: "meta" }, `${ws.type} workspace · ${ws.id}`),
      bindingList("Direct role bindings", bindings.direct, ws),
      bindingList("Inherited role bindings", bindings.inherited, ws),
    );
  };
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
  }
}
