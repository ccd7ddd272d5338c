import { context, propagation } from "@opentelemetry/api";
import { AuthzClientError } from "./errors.js";
import type { TokenProvider } from "./oauth.js";

export type BuiltInWorkspaceType = "root" | "default";

export interface WorkspaceResolverOptions {
  /** Base URL serving `/api/rbac/v2/workspaces/` (workspace-cache or the management API). */
  baseUrl: string;
  /** The calling service's own token; never the end user's identity. */
  tokens?: TokenProvider;
  timeoutMs?: number;
}

export interface WorkspaceResolver {
  rootWorkspaceId(orgId: string): Promise<string>;
  defaultWorkspaceId(orgId: string): Promise<string>;
}

const ORG_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Looks up an organisation's root and default workspace ids. The ids are immutable, so successful
 * answers are cached for the life of the process; failures are not, and concurrent lookups of the
 * same id share one request. Only `x-rh-rbac-org-id` and the service's bearer token are sent.
 */
export function createWorkspaceResolver(options: WorkspaceResolverOptions): WorkspaceResolver {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 5_000;
  const ids = new Map<string, Promise<string>>();

  async function request(orgId: string, type: BuiltInWorkspaceType): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json", "x-rh-rbac-org-id": orgId };
    propagation.inject(context.active(), headers);
    if (options.tokens) headers["authorization"] = `Bearer ${await options.tokens.getToken()}`;
    try {
      return await fetch(`${base}/api/rbac/v2/workspaces/?type=${type}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch (cause) {
      const timedOut = cause instanceof Error && cause.name === "TimeoutError";
      throw new AuthzClientError(timedOut ? "deadline-exceeded" : "unavailable", `Workspace lookup (${type}) failed: ${(cause as Error).message}`, { cause });
    }
  }

  async function fetchId(orgId: string, type: BuiltInWorkspaceType): Promise<string> {
    let response = await request(orgId, type);
    // A GET is safe to repeat: once with a fresh token after a 401, once after a 5xx.
    if (response.status === 401 && options.tokens) {
      options.tokens.invalidate();
      response = await request(orgId, type);
    } else if (response.status >= 500) {
      await new Promise((r) => setTimeout(r, 100));
      response = await request(orgId, type);
    }
    const text = await response.text();
    if (response.status === 404) throw new AuthzClientError("org-not-found", `No ${type} workspace for organisation '${orgId}'.`);
    if (response.status === 401) throw new AuthzClientError("unauthenticated", `Workspace lookup refused the service token: ${text.slice(0, 200)}`);
    if (response.status === 403) throw new AuthzClientError("permission-denied", `Workspace lookup forbidden for organisation '${orgId}'.`);
    if (response.status !== 200) throw new AuthzClientError("unavailable", `Workspace lookup (${type}) answered HTTP ${response.status}.`);
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown }).data;
    } catch (cause) {
      throw new AuthzClientError("invalid-response", "Workspace lookup did not return JSON.", { cause });
    }
    if (!Array.isArray(data) || data.length !== 1) {
      throw new AuthzClientError("invalid-response", `Unexpected number of ${type} workspaces: ${Array.isArray(data) ? data.length : "none"}.`);
    }
    const id = (data[0] as { id?: unknown }).id;
    if (typeof id !== "string" || id.length === 0) throw new AuthzClientError("invalid-response", `The ${type} workspace has no id.`);
    return id;
  }

  function cachedId(orgId: string, type: BuiltInWorkspaceType): Promise<string> {
    if (!ORG_ID.test(orgId)) return Promise.reject(new AuthzClientError("invalid-argument", `'${orgId}' is not a valid organisation id.`));
    const key = `${type}:${orgId}`;
    let id = ids.get(key);
    if (!id) {
      id = fetchId(orgId, type);
      ids.set(key, id);
      id.catch(() => ids.delete(key)); // never cache a failure
    }
    return id;
  }

  return {
    rootWorkspaceId: (orgId) => cachedId(orgId, "root"),
    defaultWorkspaceId: (orgId) => cachedId(orgId, "default"),
  };
}
