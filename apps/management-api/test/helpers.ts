import { readdirSync, readFileSync } from "node:fs";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { compileSchema } from "@gatehouse/evaluator";
import type { SystemRoleDefinition } from "@gatehouse/store";
import {
  buildServer,
  createPermissionCatalogue,
  loadRoleConfiguration,
  type BuildServerOptions,
  type ManagementApiConfig,
  type RoleConfiguration,
} from "../src/index.js";

/** The real rbac-config fixtures (read-only reference data next to the repository). */
const FIXTURES = new URL("../../../../shared/fixtures/rbac-config/", import.meta.url);

/** Scopes used by the tests: RBAC administration at the organisation, advisor at root. */
export function testScopeOf(permission: string): "tenant" | "root" | "default" {
  if (permission.startsWith("rbac:")) return "tenant";
  if (permission.startsWith("advisor:")) return "root";
  return "default";
}

function fixtureRoleConfiguration(): RoleConfiguration {
  const permissions: string[] = [];
  for (const file of readdirSync(new URL("permissions/", FIXTURES))) {
    const app = file.replace(/\.json$/, "");
    const body = JSON.parse(readFileSync(new URL(`permissions/${file}`, FIXTURES), "utf8")) as Record<string, { verb: string }[]>;
    for (const [resource, verbs] of Object.entries(body)) {
      for (const { verb } of verbs) permissions.push(`${app}:${resource}:${verb}`);
      permissions.push(`${app}:${resource}:*`);
    }
    permissions.push(`${app}:*:*`);
  }
  const systemRoles: SystemRoleDefinition[] = [];
  for (const file of readdirSync(new URL("roles/", FIXTURES))) {
    const body = JSON.parse(readFileSync(new URL(`roles/${file}`, FIXTURES), "utf8")) as { roles: SystemRoleDefinition[] };
    systemRoles.push(...body.roles.map((role) => ({ ...role, scope: testScopeOf(role.access[0]?.permission ?? "") })));
  }
  return {
    model: compileSchema(readFileSync(new URL("stage/schema.zed", FIXTURES), "utf8")),
    catalogue: createPermissionCatalogue(permissions, testScopeOf),
    systemRoles,
  };
}

let shared: Promise<RoleConfiguration> | null = null;

/** The project's role configuration when it is available, else the rbac-config fixtures. */
export function testRoleConfiguration(): Promise<RoleConfiguration> {
  shared ??= loadRoleConfiguration("stage").catch(() => fixtureRoleConfiguration());
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
  stop(): Promise<void>;
}

export const V2 = "/api/rbac/v2";

export async function startApp(config: Partial<ManagementApiConfig> = {}, options: BuildServerOptions = {}): Promise<TestApp> {
  const server = buildServer(
    { port: 0, host: "127.0.0.1", allowChildrenUnderRoot: false, ...config },
    { roleConfiguration: await testRoleConfiguration(), ...options },
  );
  const { port } = await server.start();
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
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
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    stop: () => server.stop(),
  };
}
