// The organisation's v1 / v2 mode decides how the console writes roles. In v1 mode its role writes
// go through the v1 API (a v2 role write would switch the organisation to v2 for good, ending its
// administrators' v1 writes); once v2 is active, v1 role writes are refused, so only v2 is offered.
export type OrgMode = "v1" | "v2";

export interface ModeAnswer {
  org_id: string;
  mode: OrgMode;
  v2_activated_at: string | null;
}

export interface RoleDraft {
  name: string;
  description: string | null;
  /** v1 permissions, `application:resource_type:verb`. */
  permissions: string[];
}

export interface Request {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
}

const V1 = "/api/rbac/v1";
const V2 = "/api/rbac/v2";

/** The request creating a custom role in this mode. */
export function createRoleRequest(mode: OrgMode, draft: RoleDraft): Request {
  if (mode === "v1") {
    return {
      method: "POST",
      path: `${V1}/roles/`,
      body: { name: draft.name, description: draft.description, access: draft.permissions.map((permission) => ({ permission, resourceDefinitions: [] })) },
    };
  }
  const permissions = draft.permissions.map((p) => {
    const [application = "", resource_type = "", operation = ""] = p.split(":");
    return { application, resource_type, operation };
  });
  return { method: "POST", path: `${V2}/roles/`, body: { name: draft.name, description: draft.description, permissions } };
}

/** The request deleting a custom role in this mode. */
export function deleteRoleRequest(mode: OrgMode, roleId: string): Request {
  return mode === "v1" ? { method: "DELETE", path: `${V1}/roles/${encodeURIComponent(roleId)}/` } : { method: "POST", path: `${V2}/roles:batchDelete/`, body: { ids: [roleId] } };
}

/** What the console tells the administrator about the mode. */
export function modeNotice(answer: ModeAnswer): string {
  return answer.mode === "v1"
    ? "This organisation is in v1 mode: roles are written through the v1 API, which also writes them for v2 checks. Activating v2 is an operator's step and ends v1 role writes."
    : `This organisation is in v2 mode${answer.v2_activated_at ? ` since ${answer.v2_activated_at}` : ""}: v1 role writes are refused, roles are written through the v2 API.`;
}
