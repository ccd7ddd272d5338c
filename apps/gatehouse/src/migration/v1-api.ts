// Reads an organisation from a live insights-rbac v1 API (or Gatehouse's own v1 endpoints) into
// the v1 export structure, so `migrate --from-url` imports exactly as `migrate --input` does.
// Every list is read page by page (limit/offset, until meta.count); each request is retried with
// exponential backoff on network errors, timeouts, 429 and 5xx.
import { MigrationError } from "./errors.js";
import { createProgress } from "./progress.js";

export interface V1ApiOptions {
  /** `https://host` (the API is under /api/rbac/v1) or the v1 root itself (`.../api/rbac/v1`). */
  baseUrl: string;
  /** Bearer token (a system user's, or a user's). */
  token?: string;
  /** Raw (base64) x-rh-identity header. */
  identity?: string;
  /** Organisation to read; sent as x-rh-rbac-org-id with a token; read from the identity otherwise. */
  orgId?: string;
  pageSize?: number;
  /** Attempts per request beyond the first. */
  retries?: number;
  /** First backoff delay; doubled per attempt (capped at 10 s). */
  backoffMs?: number;
  timeoutMs?: number;
  /** Progress lines on this stream (default stderr); null for none. */
  progress?: NodeJS.WriteStream | null;
}

interface AccessOut {
  permission: string;
  resourceDefinitions?: unknown[];
}
interface RoleOut {
  uuid: string;
  name: string;
  display_name?: string;
  description?: string | null;
  system?: boolean;
  platform_default?: boolean;
  admin_default?: boolean;
  access?: AccessOut[];
}
interface GroupOut {
  uuid: string;
  name: string;
  description?: string | null;
  system?: boolean;
  platform_default?: boolean;
  admin_default?: boolean;
}
interface PrincipalOut {
  username: string;
  user_id?: string | number | null;
  is_org_admin?: boolean;
  type?: string;
}

/** The v1 root URL: `<base>/api/rbac/v1` unless the base already ends in `/v1`. */
export function v1Root(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new MigrationError("invalid-options", `--from-url '${baseUrl}' is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new MigrationError("invalid-options", "--from-url must be an http(s) URL");
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = /\/v1$/.test(path) ? path : `${path}/api/rbac/v1`;
  url.search = "";
  return url.toString().replace(/\/+$/, "");
}

/** org_id of a base64 x-rh-identity header. */
export function orgOfIdentity(identity: string): string | undefined {
  try {
    const doc = JSON.parse(Buffer.from(identity, "base64").toString("utf8")) as { identity?: { org_id?: unknown } };
    return typeof doc.identity?.org_id === "string" ? doc.identity.org_id : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class V1ApiClient {
  private readonly root: string;
  private readonly headers: Record<string, string>;
  private readonly pageSize: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;
  requests = 0;

  constructor(private readonly options: V1ApiOptions) {
    this.root = v1Root(options.baseUrl);
    if (!options.token && !options.identity) throw new MigrationError("invalid-options", "--from-url needs --token or --identity");
    this.headers = { accept: "application/json" };
    if (options.token) this.headers["authorization"] = `Bearer ${options.token}`;
    if (options.identity) this.headers["x-rh-identity"] = options.identity;
    if (options.orgId && options.token) this.headers["x-rh-rbac-org-id"] = options.orgId;
    this.pageSize = options.pageSize ?? 100;
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** GET `<root><path>` as JSON, retried on transient failures. */
  async get<T>(path: string): Promise<T> {
    const url = `${this.root}${path}`;
    let lastError = "";
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(Math.min(this.backoffMs * 2 ** (attempt - 1), 10_000));
      this.requests++;
      let response: Response;
      try {
        response = await fetch(url, { headers: this.headers, signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
        continue;
      }
      if (response.ok) {
        try {
          return (await response.json()) as T;
        } catch {
          throw new MigrationError("invalid-export", `GET ${url}: the answer is not JSON`);
        }
      }
      const body = (await response.text()).slice(0, 300);
      if (response.status === 429 || response.status >= 500) {
        lastError = `HTTP ${response.status}`;
        const after = Number(response.headers.get("retry-after"));
        if (Number.isFinite(after) && after > 0) await sleep(Math.min(after * 1000, 30_000));
        continue;
      }
      throw new MigrationError("invalid-export", `GET ${url}: HTTP ${response.status} ${body}`);
    }
    throw new MigrationError("invalid-export", `GET ${url}: gave up after ${this.retries + 1} attempts (${lastError})`);
  }

  /** Every item of a paged v1 list. */
  async all<T>(path: string, label: string): Promise<T[]> {
    const sep = path.includes("?") ? "&" : "?";
    const items: T[] = [];
    let total: number | undefined;
    const progress = this.options.progress === null ? null : createProgress(label, 1, this.options.progress ?? process.stderr);
    for (let offset = 0; total === undefined || offset < total; ) {
      const page = await this.get<{ meta?: { count?: number }; data?: T[] }>(`${path}${sep}limit=${this.pageSize}&offset=${offset}`);
      const data = Array.isArray(page.data) ? page.data : [];
      total = typeof page.meta?.count === "number" ? page.meta.count : offset + data.length;
      items.push(...data);
      if (data.length === 0) break;
      offset += data.length;
      progress?.update(Math.min(offset, total), `${Math.min(offset, total)}/${total}`);
    }
    progress?.stop();
    return items;
  }
}

const userIdOf = (p: PrincipalOut) => (p.user_id !== undefined && p.user_id !== null && String(p.user_id) !== "" ? String(p.user_id) : p.username);

/**
 * Reads roles (with access and resource definitions), groups (with roles and principals), the
 * organisation's principals and a customised default group, in insights-rbac's v1 shapes, and
 * returns a (not yet validated) v1 export of that one organisation.
 */
export async function readV1Api(options: V1ApiOptions): Promise<{ export: unknown; requests: number }> {
  const orgId = options.orgId ?? (options.identity ? orgOfIdentity(options.identity) : undefined);
  if (!orgId) throw new MigrationError("invalid-options", "--from-url needs --org-id (or an identity that carries one)");
  const client = new V1ApiClient({ ...options, orgId });

  const roles = await client.all<RoleOut>("/roles/?add_fields=access", "roles");
  for (const [i, r] of roles.entries()) {
    if (!Array.isArray(r.access)) roles[i] = await client.get<RoleOut>(`/roles/${encodeURIComponent(r.uuid)}/`);
  }
  const principals = await client.all<PrincipalOut>("/principals/", "principals");
  const groups = await client.all<GroupOut>("/groups/", "groups");

  const usernames = new Map(principals.map((p) => [p.username.toLowerCase(), userIdOf(p)]));
  const extraPrincipals = new Map<string, PrincipalOut>();
  const outGroups: unknown[] = [];
  const progress = options.progress === null ? null : createProgress("group members and roles", groups.length, options.progress ?? process.stderr);
  for (const [i, g] of groups.entries()) {
    // The admin-default group and an untouched platform-default group are the tenant's own.
    const customDefault = g.platform_default === true && g.system === false;
    if (g.admin_default || (g.platform_default && !customDefault)) {
      progress?.update(i + 1, g.name);
      continue;
    }
    const id = encodeURIComponent(g.uuid);
    const groupRoles = await client.all<RoleOut>(`/groups/${id}/roles/`, `  ${g.name} roles`);
    const members = customDefault ? [] : await client.all<PrincipalOut>(`/groups/${id}/principals/`, `  ${g.name} principals`);
    const memberIds = members.map((m) => {
      const known = usernames.get(m.username.toLowerCase());
      if (known) return known;
      extraPrincipals.set(m.username.toLowerCase(), m);
      return userIdOf(m);
    });
    outGroups.push({
      uuid: g.uuid,
      name: g.name,
      principals: [...new Set(memberIds)],
      roles: groupRoles.map((r) => r.uuid),
      ...(customDefault ? { platform_default: true } : {}),
    });
    progress?.update(i + 1, g.name);
  }
  progress?.stop();

  const role = (r: RoleOut) => ({
    uuid: r.uuid,
    name: r.name,
    ...(r.display_name ? { display_name: r.display_name } : {}),
    ...(r.description ? { description: r.description } : {}),
    access: (r.access ?? []).map((a) => ({ permission: a.permission, resourceDefinitions: a.resourceDefinitions ?? [] })),
    ...(r.platform_default ? { platform_default: true } : {}),
    ...(r.admin_default ? { admin_default: true } : {}),
  });
  const principal = (p: PrincipalOut) => ({
    user_id: userIdOf(p),
    username: p.username,
    ...(p.is_org_admin !== undefined ? { is_org_admin: p.is_org_admin === true } : {}),
  });
  return {
    export: {
      version: 1,
      system_roles: roles.filter((r) => r.system === true).map(role),
      tenants: [
        {
          org_id: orgId,
          principals: [...principals, ...extraPrincipals.values()].map(principal),
          roles: roles.filter((r) => r.system !== true).map(role),
          groups: outGroups,
        },
      ],
    },
    requests: client.requests,
  };
}
