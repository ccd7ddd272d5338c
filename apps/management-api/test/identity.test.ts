import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeIdentityHeader, parseSystemUsers } from "@gatehouse/auth";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let issuer: string;
let jwks: Server;
let key: CryptoKey;
let app: TestApp;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  key = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k", alg: "RS256" };
  jwks = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url?.endsWith("/.well-known/openid-configuration")) res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/certs` }));
    else res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/realm`;
  app = await startApp({
    trustIdentityHeader: false,
    oidc: { issuerUrl: issuer, insecure: true, audience: "gatehouse" },
    systemUsers: parseSystemUsers(JSON.stringify({ "svc-any": { admin: true, allow_any_org: true }, "svc-fixed": { admin: true }, "svc-weak": { admin: false } })),
  });
});
afterAll(async () => {
  await app.stop();
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
});

const token = (sub: string, claims: Record<string, unknown> = {}) =>
  new SignJWT({ aud: "gatehouse", ...claims }).setProtectedHeader({ alg: "RS256", kid: "k" }).setIssuer(issuer).setSubject(sub).setExpirationTime("5m").sign(key);
const bearer = async (sub: string, headers: Record<string, string> = {}, claims: Record<string, unknown> = {}) => ({
  as: null,
  headers: { authorization: `Bearer ${await token(sub, claims)}`, ...headers },
});

describe("bearer tokens and system users", () => {
  it("lets an allow_any_org system user choose the organisation (and bootstraps it)", async () => {
    const res = await app.request("GET", `${V2}/workspaces/?type=root,default`, await bearer("svc-any", { "x-rh-rbac-org-id": "sys-org-1" }));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
  });

  it("uses the token's organisation for other system users and rejects a different header", async () => {
    const ok = await app.request("GET", `${V2}/workspaces/?type=default`, await bearer("svc-fixed", {}, { organization: { id: "sys-org-2" } }));
    expect(ok.status).toBe(200);
    const mismatch = await app.request("GET", `${V2}/workspaces/`, await bearer("svc-fixed", { "x-rh-rbac-org-id": "other" }, { organization: { id: "sys-org-2" } }));
    expect(mismatch.status).toBe(403);
    const noOrg = await app.request("GET", `${V2}/workspaces/`, await bearer("svc-fixed"));
    expect(noOrg.status).toBe(400);
  });

  it("refuses unknown subjects, bad tokens, and non-admin system users' writes", async () => {
    expect((await app.request("GET", `${V2}/workspaces/`, await bearer("stranger", { "x-rh-rbac-org-id": "x" }))).status).toBe(403);
    const garbage = await app.request("GET", `${V2}/workspaces/`, { as: null, headers: { authorization: "Bearer not-a-token" } });
    expect(garbage.status).toBe(401);
    expect(garbage.headers.get("content-type")).toContain("application/problem+json");
    const weak = await app.request("POST", `${V2}/workspaces/`, { ...(await bearer("svc-weak", {}, { organization: { id: "sys-org-3" } })), body: { name: "w" } });
    expect(weak.status).toBe(403);
  });

  it("ignores x-rh-identity when it is not trusted", async () => {
    const res = await app.request("GET", `${V2}/workspaces/`, { as: null, headers: { "x-rh-identity": encodeIdentityHeader({ orgId: "o", userId: "u", isOrgAdmin: true }) } });
    expect(res.status).toBe(401);
  });
});

describe("an identity header never overrides a bearer token", () => {
  const forged = encodeIdentityHeader({ orgId: "victim-org", userId: "victim-admin", isOrgAdmin: true });

  it("verifies the token even when x-rh-identity is trusted and present (a bad token is a 401, not the header's identity)", async () => {
    const both = await startApp({
      trustIdentityHeader: true,
      oidc: { issuerUrl: issuer, insecure: true, audience: "gatehouse" },
      systemUsers: parseSystemUsers(JSON.stringify({ "svc-fixed": { admin: true } })),
    });
    try {
      const badToken = await both.request("GET", `${V2}/workspaces/`, { as: null, headers: { "x-rh-identity": forged, authorization: "Bearer not-a-token" } });
      expect(badToken.status).toBe(401);
      // A valid token acts as its own organisation, not as the header's.
      const mine = await both.request("GET", `${V2}/workspaces/?type=root`, await bearer("svc-fixed", {}, { organization: { id: "sys-org-9" } }));
      const withHeader = await both.request("GET", `${V2}/workspaces/?type=root`, await bearer("svc-fixed", { "x-rh-identity": forged }, { organization: { id: "sys-org-9" } }));
      expect(withHeader.status).toBe(200);
      expect(withHeader.body.data[0].id).toBe(mine.body.data[0].id);
      // Without a token, the trusted header still works (gateway deployments).
      expect((await both.request("GET", `${V2}/workspaces/`, { as: null, headers: { "x-rh-identity": forged } })).status).toBe(200);
    } finally {
      await both.stop();
    }
  });

  it("does not trust the header by default once an issuer is configured", async () => {
    const { configFromEnv } = await import("../src/index.js");
    expect(configFromEnv({ OIDC_ISSUER_URL: "https://sso.example/realm" }).trustIdentityHeader).toBe(false);
    expect(configFromEnv({ OIDC_ISSUER_URL: "https://sso.example/realm", TRUST_IDENTITY_HEADER: "true" }).trustIdentityHeader).toBe(true);
    expect(configFromEnv({}).trustIdentityHeader).toBe(true);
    const tokensOnly = await startApp({ oidc: { issuerUrl: issuer, insecure: true, audience: "gatehouse" } });
    try {
      expect((await tokensOnly.request("GET", `${V2}/workspaces/`, { as: null, headers: { "x-rh-identity": forged } })).status).toBe(401);
    } finally {
      await tokensOnly.stop();
    }
  });
});

describe("service endpoints", () => {
  it("serves the OpenAPI document without authentication, generated from the request schemas", async () => {
    const res = await app.request("GET", `${V2}/openapi.json`, { as: null });
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, { operationId: string; requestBody?: any; parameters?: any[] }>>;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining([`${V2}/workspaces/`, `${V2}/roles:batchDelete/`, `${V2}/role-bindings:batchCreate/`, `${V2}/principals/`]));
    const create = paths[`${V2}/workspaces/`]!["post"]!;
    expect(create.operationId).toBe("Workspaces_create");
    const resolve = (schema: { $ref?: string }) => (schema.$ref ? res.body.components.schemas[schema.$ref.split("/").pop()!] : schema);
    const schema = resolve(create.requestBody.content["application/json"].schema);
    expect(schema.required).toEqual(["name"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.name.maxLength).toBe(255);
    const batch = resolve(paths[`${V2}/role-bindings:batchCreate/`]!["post"]!.requestBody.content["application/json"].schema);
    expect(batch.properties.requests).toMatchObject({ minItems: 1, maxItems: 100 });
    const refs = [...res.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((ref) => !(ref in res.body.components.schemas))).toEqual([]);
    expect(paths[`${V2}/workspaces/`]!["get"]!.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(["type", "name", "parent_id", "ids", "order_by", "with_ancestry", "limit", "offset"]));
  });

  it("answers liveness, readiness and metrics", async () => {
    expect((await app.request("GET", "/livez", { as: null })).status).toBe(200);
    expect((await app.request("GET", "/readyz", { as: null })).status).toBe(200);
    const metrics = await app.request("GET", "/metrics", { as: null });
    expect(metrics.text).toContain("http_request_duration_seconds_bucket{");
    expect(metrics.text).toMatch(/^process_cpu_seconds_total /m);
  });
});
