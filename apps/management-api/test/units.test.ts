import { describe, expect, it } from "vitest";
import { StoreError } from "@gatehouse/store";
import { configFromEnv } from "../src/index.js";
import { toApiError } from "../src/http/errors.js";
import { busy, DomainError, type DomainErrorKind } from "../src/domain/errors.js";
import { applyFieldMask, parseFieldMask } from "../src/http/field-mask.js";
import { encodeCursor, parseCursorPage, parseOffsetPage } from "../src/http/pagination.js";
import { BINDING_FIELDS } from "../src/schemas/role-bindings.js";
import { isLoopbackAddress } from "../src/http/loopback.js";
import { createPermissionCatalogue } from "../src/authz/catalogue.js";
import { defaultOnlyOf, defaultScopeOf } from "../src/authz/role-config.js";
import { operatorServices } from "../src/commands/org-mode.js";
import type { Services } from "../src/commands/services.js";

const catching = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
};

describe("field masks", () => {
  const row = {
    role: { id: "r", name: "n", created: "c", modified: "m" },
    subject: { id: "s", type: "group", group: { name: "g", description: null, user_count: 2 } },
    resource: { id: "w", type: "workspace" },
    sources: [
      { id: "w", type: "workspace" },
      { id: "p", type: "workspace" },
    ],
  };

  it("projects nested objects, dotted paths and arrays", () => {
    const mask = parseFieldMask("subject(id,group.name),role(name),sources(id)", BINDING_FIELDS);
    expect(applyFieldMask(row, mask)).toEqual({
      subject: { id: "s", group: { name: "g" } },
      role: { name: "n" },
      sources: [{ id: "w" }, { id: "p" }],
    });
  });

  it("names the valid fields when one is unknown, and refuses malformed masks", () => {
    expect(() => parseFieldMask("role(colour)", BINDING_FIELDS)).toThrow(/Unknown field: 'role.colour'. Valid fields: .*role.name/);
    expect(() => parseFieldMask("role(id", BINDING_FIELDS)).toThrow(/Unbalanced/);
    expect(() => parseFieldMask("", BINDING_FIELDS)).toThrow(/empty/);
  });
});

describe("pagination parameters", () => {
  it("defaults, clamps and accepts -1", () => {
    expect(parseOffsetPage({}, 3000)).toEqual({ limit: 10, offset: 0 });
    expect(parseOffsetPage({ limit: "5000", offset: "7" }, 3000)).toEqual({ limit: 3000, offset: 7 });
    expect(parseOffsetPage({ limit: "-1" }, 3000).limit).toBe(-1);
  });

  it("round-trips cursors and refuses forged ones", () => {
    expect(parseCursorPage({ cursor: encodeCursor(40), limit: "20" }, 1000)).toEqual({ limit: 20, offset: 40 });
    expect(() => parseCursorPage({ cursor: "garbage" }, 1000)).toThrow(/Invalid cursor/);
    expect(() => parseCursorPage({ cursor: Buffer.from('{"o":-3}').toString("base64url") }, 1000)).toThrow(/Invalid cursor/);
  });
});

describe("configuration from the environment", () => {
  it("reads every setting and rejects bad values", () => {
    const config = configFromEnv({
      PORT: "8123",
      GATEHOUSE_ENV: "prod",
      TRUST_IDENTITY_HEADER: "false",
      SYSTEM_USERS: '{"svc":{"admin":true}}',
      WORKSPACE_MAX_DEPTH: "7",
      ALLOW_CHILDREN_UNDER_ROOT: "true",
      OIDC_ISSUER_URL: "https://sso.example/realm",
    });
    expect(config).toMatchObject({ port: 8123, env: "prod", trustIdentityHeader: false, workspaceMaxDepth: 7, allowChildrenUnderRoot: true });
    expect(config.systemUsers.get("svc")?.admin).toBe(true);
    expect(config.oidc?.issuerUrl).toBe("https://sso.example/realm");
    expect(() => configFromEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => configFromEnv({ GATEHOUSE_ENV: "dev" })).toThrow(/GATEHOUSE_ENV/);
    expect(() => configFromEnv({ TRUST_IDENTITY_HEADER: "maybe" })).toThrow(/TRUST_IDENTITY_HEADER/);
    // Bounded below the evaluator's depth limit: deeper trees would make checks fail.
    expect(() => configFromEnv({ WORKSPACE_MAX_DEPTH: "60" })).toThrow(/WORKSPACE_MAX_DEPTH: must be an integer from 1 to 32/);
    expect(configFromEnv({ WORKSPACE_MAX_DEPTH: "32" }).workspaceMaxDepth).toBe(32);
    expect(() => configFromEnv({ SYSTEM_USERS: "{" })).toThrow(/SYSTEM_USERS/);
  });

  it("trusts the identity header by default only without an OIDC issuer", () => {
    expect(configFromEnv({}).trustIdentityHeader).toBe(true);
    expect(configFromEnv({ OIDC_ISSUER_URL: "https://sso.example/realm" }).trustIdentityHeader).toBe(false);
    expect(configFromEnv({ OIDC_ISSUER_URL: "https://sso.example/realm", TRUST_IDENTITY_HEADER: "true" }).trustIdentityHeader).toBe(true);
  });

  it("reads the HTTP server bounds", () => {
    expect(configFromEnv({}).http).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 65_000, idleTimeoutMs: 120_000, maxConnections: 10_000 });
    expect(configFromEnv({ HTTP_IDLE_TIMEOUT_MS: "5000", HTTP_MAX_CONNECTIONS: "50" }).http).toMatchObject({ idleTimeoutMs: 5000, maxConnections: 50 });
    expect(() => configFromEnv({ HTTP_MAX_CONNECTIONS: "0" })).toThrow(/HTTP_MAX_CONNECTIONS/);
  });

  it("GATEHOUSE_ROLE_CONFIG names a role-configuration directory; unset keeps the built-in one", () => {
    expect(configFromEnv({ GATEHOUSE_ROLE_CONFIG: "/srv/rbac-config/configs/prod" }).roleConfigDir).toBe("/srv/rbac-config/configs/prod");
    expect(configFromEnv({}).roleConfigDir).toBeUndefined();
  });
});

describe("store error mapping", () => {
  it.each([
    ["not-found", 404],
    ["cross-tenant", 404],
    ["duplicate-name", 400],
    ["depth-exceeded", 400],
    ["immutable", 400],
    ["not-assignable", 400],
    ["conflict", 409],
    ["already-exists", 409],
    ["unavailable", 503],
    ["internal", 500],
  ] as const)("maps %s to %i", (code, status) => {
    const error = toApiError(new StoreError(code, "message", "name"));
    expect(error.status).toBe(status);
    if (status === 500) expect(error.message).toBe("Unexpected error occurred.");
  });

  it("answers lost races with insights-rbac's plain body", () => {
    expect(toApiError(new StoreError("conflict", "x")).options.plainBody).toEqual({ detail: "Too many concurrent updates. Please retry." });
  });

  it("answers a duplicate key with what it is, never with 'retry'", () => {
    const error = toApiError(new StoreError("already-exists", "The organisation already exists (unique key gh_tenants_pkey)."));
    expect(error.status).toBe(409);
    expect(error.options.plainBody).toBeUndefined();
    expect(error.errors[0]!.message).toBe("The organisation already exists (unique key gh_tenants_pkey).");
  });
});

describe("domain errors at the HTTP edge", () => {
  it.each([
    ["invalid", 400],
    ["forbidden", 403],
    ["not-found", 404],
    ["conflict", 409],
    ["busy", 503],
    ["unavailable", 503],
    ["internal", 500],
  ] as const)("maps %s to %i with the command's words and field", (kind: DomainErrorKind, status) => {
    const error = toApiError(new DomainError(kind, [{ message: "words", field: "access.0.permission" }]));
    expect(error.status).toBe(status);
    expect(error.errors).toEqual([{ message: "words", field: "access.0.permission" }]);
  });

  it("answers a lost race with 503, Retry-After and insights-rbac's plain body", () => {
    const error = toApiError(busy());
    expect(error.options.headers).toEqual({ "retry-after": "1" });
    expect(error.options.plainBody).toEqual({ detail: "Too many concurrent updates. Please retry." });
  });
});

describe("operator endpoints", () => {
  it("accept loopback callers only", () => {
    for (const a of ["127.0.0.1", "127.10.0.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a)).toBe(true);
    for (const a of [undefined, "", "10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "1127.0.0.1", "127.0.0.1.evil", "::2"]) expect(isLoopbackAddress(a)).toBe(false);
  });

  it("refuse other hosts (403) and a service not started (503, problem body) as domain errors", () => {
    const services = {} as Services;
    expect(operatorServices(true, services)).toBe(services);
    const remote = toApiError(catching(() => operatorServices(false, services)));
    expect([remote.status, remote.errors]).toEqual([403, [{ message: "Organisation modes can be read and set from the local host only.", field: "detail" }]]);
    const starting = toApiError(catching(() => operatorServices(true, null)));
    expect([starting.status, starting.errors, starting.options]).toEqual([503, [{ message: "The service is not ready.", field: "detail" }], {}]);
  });
});

describe("permissions checked at the Default Workspace only (not offered for a standard workspace)", () => {
  const catalogue = createPermissionCatalogue([], defaultScopeOf(), defaultOnlyOf());
  it.each([
    ["remediations:remediation:read", true], // Pattern 3: the asset is placed in the Default Workspace
    ["remediations:*:*", true],
    ["inventory:hosts:read", false], // workspace-aware
    ["inventory:*:*", false],
    ["*:*:*", false], // grants workspace-aware types too
    ["noapp:thing:read", false], // unknown: workspace-granular, as upstream's fallback
    ["advisor:*:read", false], // ROOT-scoped, not DEFAULT
  ])("%s -> %s", (permission, expected) => {
    expect(catalogue.defaultOnly(permission)).toBe(expected);
  });
});
