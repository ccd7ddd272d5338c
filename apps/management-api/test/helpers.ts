import { encodeIdentityHeader } from "@gatehouse/auth";
import type { Store } from "@gatehouse/store";
import { openTestStore } from "@gatehouse/store/testing";
import { buildServer, loadRoleConfiguration, type BuildServerOptions, type ManagementApiConfig, type RoleConfiguration } from "../src/index.js";
import { validateAgainstSpec } from "./openapi-validator.js";

let shared: Promise<RoleConfiguration> | null = null;

/** The project's stage role configuration, loaded once per worker (its test files share it; nothing changes it). */
export function testRoleConfiguration(): Promise<RoleConfiguration> {
  shared ??= loadRoleConfiguration("stage");
  return shared;
}

export interface Caller {
  org: string;
  user?: string;
  admin?: boolean;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestApp {
  baseUrl: string;
  request(method: string, path: string, options?: { as?: Caller | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<TestResponse>;
  /** The app's own store, for records no API call can make (what an importer or another service writes). */
  store: Store;
  /** Runs the expiry sweep now; resolves once the answers reflect it. */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

export const V2 = "/api/rbac/v2";

export const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Starts the API on port 0 over a store of its own: a throw-away Postgres schema (dropped on
 * stop) or an in-memory PGlite database.
 */
export async function startApp(
  config: Partial<ManagementApiConfig> = {},
  /** `now`: one clock for the store and the API's answers, for grant expiries (default the machine's). */
  options: BuildServerOptions & { backend?: "pg" | "pglite" } = {},
): Promise<TestApp> {
  const { backend = "pg", ...buildOptions } = options;
  const { now } = options;
  const store = await openTestStore(backend === "pg" ? { name: "pg", databaseUrl: DATABASE_URL } : { name: "pglite" }, {
    domain: config.domain ?? "redhat",
    workspaceDepthLimit: config.workspaceMaxDepth ?? 5,
    ...(now ? { now } : {}),
  });
  const server = buildServer({ port: 0, host: "127.0.0.1", allowChildrenUnderRoot: false, ...config }, { roleConfiguration: await testRoleConfiguration(), store, ...buildOptions });
  const { port } = await server.start();
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    store,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const as = opts.as === undefined ? { org: "o1", user: "admin", admin: true } : opts.as;
      if (as) {
        headers["x-rh-identity"] = encodeIdentityHeader({ orgId: as.org, userId: as.user ?? "admin", username: as.user ?? "admin", isOrgAdmin: as.admin ?? false });
      }
      let body: string | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined && !("content-type" in headers)) headers["content-type"] = "application/json";
      const response = await fetch(baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      validateAgainstSpec(method, path, response.status, response.headers.get("content-type"), text);
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    sweep: () => server.sweepNow(),
    async stop() {
      await server.stop();
      await store.close();
    },
  };
}
