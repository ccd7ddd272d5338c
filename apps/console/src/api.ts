// The console talks to the management API of its own origin only, with the caller's credentials:
// a gateway's x-rh-identity (nothing to do here), or one the user enters (locally, an identity;
// deployed, a bearer token), kept for this browser tab only.
const STORAGE_KEY = "gatehouse.console.credential";

export type Credential = { kind: "identity"; orgId: string; userId: string; orgAdmin: boolean } | { kind: "bearer"; token: string };

export interface FieldError {
  field: string;
  message: string;
}

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The API's own validation errors, by field (`name`, `requests[0].role.id`, ...). */
    readonly errors: FieldError[] = [],
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

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...authHeaders(loadCredential()) };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(apiUrl(path), { method, headers, credentials: "same-origin", ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    // v2 problems name the field and message; v1 errors (as insights-rbac's) say source and detail.
    const problem = parsed as { errors?: { field?: string; message?: string; source?: string; detail?: string }[]; detail?: string } | null;
    const errors: FieldError[] = (problem?.errors ?? []).map((e) => ({ field: e.field ?? e.source ?? "detail", message: e.message ?? e.detail ?? "" }));
    const detail = errors.length > 0 ? errors.map((e) => (e.field !== "detail" ? `${e.field}: ${e.message}` : e.message)).join("; ") : problem?.detail;
    throw new ApiProblem(res.status, detail || (res.status === 401 ? "Sign in to use the console." : `HTTP ${res.status}`), errors);
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
  description?: string | null;
}

/** Whether a local sign-in's organisation exists (asked without creating it). */
export async function organisationExists(orgId: string): Promise<boolean> {
  const res = await fetch(apiUrl(`${V2}/access:organisation/?org_id=${encodeURIComponent(orgId)}`), { headers: { accept: "application/json" } });
  if (res.status === 204) return true;
  if (res.status === 404) return false;
  throw new ApiProblem(res.status, res.status === 400 ? "Enter an organisation id of 1-64 letters, digits, '-' or '_'." : `HTTP ${res.status}`);
}

/** One management API call, as a fix or a form sends it (and shows it to copy). */
export interface ApiCall {
  method: Method;
  path: string;
  body?: unknown;
}

const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/** The call as curl, with the same identity header the console sends (or a placeholder for a token). */
export function curlOf(call: ApiCall): string {
  const url = apiUrl(call.path);
  const credential = loadCredential();
  const auth = credential?.kind === "bearer" ? '-H "authorization: Bearer $TOKEN"' : `-H ${shellQuote(`x-rh-identity: ${authHeaders(credential)["x-rh-identity"] ?? "$IDENTITY"}`)}`;
  const body = call.body !== undefined ? ` -H 'content-type: application/json' --data ${shellQuote(JSON.stringify(call.body))}` : "";
  return `curl -X ${call.method} ${shellQuote(url)} ${auth}${body}`;
}

/** The call as the CLI's generic API command. */
export function cliOf(call: ApiCall): string {
  const credential = loadCredential();
  const who = credential?.kind === "identity" ? ` --org ${shellQuote(credential.orgId)} --user ${shellQuote(credential.userId)}${credential.orgAdmin ? " --org-admin" : ""}` : ' --token "$TOKEN"';
  const body = call.body !== undefined ? ` --data ${shellQuote(JSON.stringify(call.body))}` : "";
  return `gatehouse api ${call.method} ${shellQuote(call.path)} --url ${shellQuote(new URL("..", document.baseURI).origin)}${who}${body}`;
}

export interface Page<T> {
  data: T[];
}

export async function allWorkspaces(): Promise<Workspace[]> {
  return (await api<Page<Workspace>>("GET", `${V2}/workspaces/?limit=-1`)).data;
}
