// The console talks to the management API of its own origin only, with the caller's credentials:
// a gateway's x-rh-identity (nothing to do here), or one the user enters (locally, an identity;
// deployed, a bearer token), kept for this browser tab only.
const STORAGE_KEY = "gatehouse.console.credential";

export type Credential = { kind: "identity"; orgId: string; userId: string; orgAdmin: boolean } | { kind: "bearer"; token: string };

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function loadCredential(): Credential | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Credential) : null;
  } catch {
    return null;
  }
}

export function saveCredential(credential: Credential | null): void {
  if (credential) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credential));
  else sessionStorage.removeItem(STORAGE_KEY);
}

function base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function authHeaders(credential: Credential | null): Record<string, string> {
  if (!credential) return {};
  if (credential.kind === "bearer") return { authorization: `Bearer ${credential.token}` };
  const identity = {
    identity: { org_id: credential.orgId, type: "User", user: { user_id: credential.userId, username: credential.userId, is_org_admin: credential.orgAdmin } },
  };
  return { "x-rh-identity": base64(JSON.stringify(identity)) };
}

/** `../api/...` relative to /console/, so the console works behind a path prefix too. */
const apiUrl = (path: string): string => new URL(`..${path}`, document.baseURI).toString();

export async function api<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...authHeaders(loadCredential()) };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(apiUrl(path), { method, headers, credentials: "same-origin", ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    const problem = parsed as { errors?: { message: string; field: string }[]; detail?: string } | null;
    const detail = problem?.errors?.map((e) => (e.field && e.field !== "detail" ? `${e.field}: ${e.message}` : e.message)).join("; ") ?? problem?.detail;
    throw new ApiProblem(res.status, detail || (res.status === 401 ? "Sign in to use the console." : `HTTP ${res.status}`));
  }
  return parsed as T;
}

export const V2 = "/api/rbac/v2";
export const V1 = "/api/rbac/v1";

export interface Workspace {
  id: string;
  name: string;
  type: string;
  parent_id: string | null;
}

export interface Page<T> {
  data: T[];
}

export async function allWorkspaces(): Promise<Workspace[]> {
  return (await api<Page<Workspace>>("GET", `${V2}/workspaces/?limit=-1`)).data;
}
