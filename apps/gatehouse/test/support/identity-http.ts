// A fetch wrapper for tests against a running management API: the caller's x-rh-identity
// (alice is the org admin), JSON bodies, and the latest consistency token seen.
import { demoIdentityHeader } from "../../src/start/banner.js";

export interface IdentityHttp {
  (method: string, path: string, body?: unknown, user?: string): Promise<{ status: number; json: any }>;
  /** The consistency token of the latest write. */
  readonly token: string;
}

export function identityHttp(baseUrl: () => string, org: string): IdentityHttp {
  let token = "";
  const call = async (method: string, path: string, body?: unknown, user = "alice"): Promise<{ status: number; json: any }> => {
    const res = await fetch(baseUrl() + path, {
      method,
      headers: { "x-rh-identity": demoIdentityHeader(org, user, user === "alice"), ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    token = res.headers.get("x-gatehouse-consistency-token") ?? token;
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  return Object.defineProperty(call, "token", { get: () => token }) as IdentityHttp;
}
