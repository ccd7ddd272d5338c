// Groups with their members, and custom roles: lists plus forms whose API errors show by the field.
import { api, V1, V2, type Page } from "./api.js";
import { createRoleRequest, deleteRoleRequest, modeNotice, type ModeAnswer } from "./mode.js";
import { apiField, h, liveRegion, onSubmit, render, uid } from "./dom.js";

export interface Group {
  uuid: string;
  name: string;
  description: string | null;
  principalCount: number;
  platform_default: boolean;
  admin_default: boolean;
}

export const listGroups = async (): Promise<Group[]> => (await api<Page<Group>>("GET", `${V1}/groups/?limit=1000`)).data;
export const groupMembers = async (uuid: string): Promise<string[]> => (await api<Page<{ username: string }>>("GET", `${V1}/groups/${uuid}/principals/?limit=1000`)).data.map((p) => p.username);

async function groupDetail(detail: HTMLElement, group: Group, refresh: () => Promise<void>): Promise<void> {
  const members = await groupMembers(group.uuid);
  const users = (await api<Page<{ username: string }>>("GET", `${V2}/principals/?limit=1000`)).data;
  const known = h(
    "datalist",
    { id: uid("users") },
    users.filter((u) => !members.includes(u.username)).map((u) => h("option", { value: u.username })),
  );
  const username = h("input", { list: known.id, autocomplete: "off", required: true });
  const errors = h("div", {});
  const add = h(
    "form",
    { class: "inline-form", "aria-label": `Add a member to ${group.name}` },
    known,
    apiField("User name", username, "principals"),
    h("button", { type: "submit" }, "Add member"),
    errors,
  );
  onSubmit(add, errors, async () => {
    await api("POST", `${V1}/groups/${group.uuid}/principals/`, { principals: [{ username: username.value.trim() }] });
    await refresh();
  });
  const builtIn = group.platform_default || group.admin_default;
  render(
    detail,
    h("h2", {}, group.name),
    group.description ? h("p", { class: "meta" }, group.description) : null,
    h("h3", {}, `Members (${members.length})`),
    members.length === 0
      ? h("p", { class: "meta" }, builtIn ? "Everyone in the organisation (a default-access group)." : "No members yet.")
      : h(
          "ul",
          { class: "members" },
          members.map((m) => {
            const remove = h("button", { type: "button", class: "secondary", "aria-label": `Remove ${m} from ${group.name}` }, "Remove");
            remove.addEventListener("click", () => {
              remove.disabled = true;
              void api("DELETE", `${V1}/groups/${group.uuid}/principals/?usernames=${encodeURIComponent(m)}`).then(refresh, (e: unknown) => {
                remove.disabled = false;
                render(errors, h("p", { class: "error", role: "alert" }, e instanceof Error ? e.message : String(e)));
              });
            });
            return h("li", {}, h("span", {}, m), " ", remove);
          }),
        ),
    builtIn ? null : add,
  );
}

export async function groupsScreen(main: HTMLElement, query: { group?: string } = {}): Promise<void> {
  const status = liveRegion();
  const list = h("ul", { class: "pick-list", "aria-label": "Groups" });
  const detail = h("div", { class: "card", id: "group-detail" }, h("p", { class: "meta" }, "Select a group to see and change its members."));
  const name = h("input", { autocomplete: "off", required: true });
  const description = h("input", { autocomplete: "off" });
  const errors = h("div", {});
  const create = h(
    "form",
    { class: "card", "aria-labelledby": "new-group-h" },
    h("h2", { id: "new-group-h" }, "New group"),
    apiField("Name", name, "name"),
    apiField("Description", description, "description"),
    h("button", { type: "submit" }, "Create group"),
    errors,
  );
  render(
    main,
    h("h1", {}, "Groups"),
    h("p", { class: "lede" }, "Groups carry role bindings to their members."),
    status,
    h("div", { class: "split" }, h("div", { class: "card" }, list), detail),
    create,
  );
  status.textContent = "Loading…";
  const groups = await listGroups();
  status.textContent = "";

  const select = async (group: Group) => {
    for (const b of list.querySelectorAll("button[aria-pressed]")) b.setAttribute("aria-pressed", String(b.getAttribute("data-id") === group.uuid));
    history.replaceState(null, "", `#/groups?group=${group.uuid}`);
    await groupDetail(detail, group, () => groupsScreen(main, { group: group.uuid }));
  };
  for (const g of groups) {
    const button = h("button", { type: "button", class: "node", "aria-pressed": "false", "data-id": g.uuid }, g.name, h("small", { class: "hint" }, ` ${g.principalCount} member(s)`));
    button.addEventListener("click", () => void select(g));
    list.append(h("li", {}, button));
  }
  onSubmit(create, errors, async () => {
    const created = await api<Group>("POST", `${V1}/groups/`, { name: name.value.trim(), description: description.value.trim() || null });
    await groupsScreen(main, { group: created.uuid });
  });
  const chosen = groups.find((g) => g.uuid === query.group);
  if (chosen) await select(chosen);
}

interface Role {
  id: string;
  name: string;
  description: string | null;
  org_id?: string | null;
  permissions?: { application: string; resource_type: string; operation: string }[];
}

export async function rolesScreen(main: HTMLElement): Promise<void> {
  const status = liveRegion();
  const name = h("input", { autocomplete: "off", required: true });
  const description = h("input", { autocomplete: "off" });
  const permissions = h("textarea", { rows: 4, required: true, autocomplete: "off", spellcheck: "false" });
  const errors = h("div", {});
  const create = h(
    "form",
    { class: "card", "aria-labelledby": "new-role-h" },
    h("h2", { id: "new-role-h" }, "New custom role"),
    apiField("Name", name, "name"),
    apiField("Description", description, "description"),
    apiField("Permissions", permissions, "permissions", "One v1 permission per line, as application:resource:verb (e.g. advisor:disable-recommendations:write). All must belong to one level."),
    h("button", { type: "submit" }, "Create role"),
    errors,
  );
  const list = h("div", { class: "card", id: "custom-roles" });
  const modeLine = h("p", { class: "meta", id: "org-mode" });
  render(main, h("h1", {}, "Roles"), h("p", { class: "lede" }, "Custom roles of the organisation. System roles come from the role configuration."), modeLine, status, list, create);
  status.textContent = "Loading…";
  // The mode decides the API of every role write below (v1 mode: v1 writes, never an accidental v2 activation).
  const [mode, page] = await Promise.all([
    api<ModeAnswer>("GET", `${V2}/access:mode/`),
    api<Page<Role>>("GET", `${V2}/roles/?limit=1000&fields=${encodeURIComponent("id,name,description,org_id,permissions")}`),
  ]);
  const roles = page.data.filter((r) => r.org_id);
  modeLine.textContent = modeNotice(mode);
  status.textContent = "";
  render(
    list,
    h("h2", {}, `Custom roles (${roles.length})`),
    roles.length === 0
      ? h("p", { class: "meta" }, "None yet.")
      : h(
          "ul",
          { class: "roles" },
          roles.map((r) => {
            const remove = h("button", { type: "button", class: "secondary", "aria-label": `Delete role ${r.name}` }, "Delete");
            remove.addEventListener("click", () => {
              remove.disabled = true;
              const request = deleteRoleRequest(mode.mode, r.id);
              void api(request.method, request.path, request.body).then(
                () => rolesScreen(main),
                (e: unknown) => {
                  remove.disabled = false;
                  render(errors, h("p", { class: "error", role: "alert" }, e instanceof Error ? e.message : String(e)));
                },
              );
            });
            const perms = (r.permissions ?? []).map((p) => `${p.application}:${p.resource_type}:${p.operation}`);
            return h("li", {}, h("strong", {}, r.name), " ", h("small", { class: "hint" }, perms.join(", ")), " ", remove);
          }),
        ),
  );
  onSubmit(create, errors, async () => {
    const lines = permissions.value
      .split(/\n|,/)
      .map((l) => l.trim())
      .filter((l) => l !== "");
    const request = createRoleRequest(mode.mode, { name: name.value.trim(), description: description.value.trim() || null, permissions: lines });
    await api(request.method, request.path, request.body);
    await rolesScreen(main);
  });
}
