// inventory-api's HTTP/JSON interface on the engine's HTTP port: driven by the published browser
// client (@project-kessel/react-kessel-access-check's request functions) with x-rh-identity and
// with bearer tokens; every answer validated against inventory-api's openapi.yaml; the same
// question over gRPC and over HTTP gives the same answer, route by route; bad input gets
// upstream's 4xx shapes and changes nothing.
import { connect, type Socket } from "node:net";
import { Metadata, status } from "@grpc/grpc-js";
import { encodeIdentityHeader } from "@gatehouse/auth";
import {
  Allowed,
  CheckBulkRequest,
  CheckBulkResponse,
  CheckForUpdateBulkRequest,
  CheckForUpdateBulkResponse,
  CheckForUpdateRequest,
  CheckForUpdateResponse,
  CheckRequest,
  CheckResponse,
  CheckSelfBulkRequest,
  CheckSelfBulkResponse,
  CheckSelfRequest,
  CheckSelfResponse,
  DeleteResourceRequest,
  DeleteResourceResponse,
  protoJsonCodec,
  ReportResourceRequest,
  ReportResourceResponse,
  WriteVisibility,
  type BinaryMessageFns,
} from "@gatehouse/proto";
import { openStore, type Store, type Tenant } from "@gatehouse/store";
import { checkSelf, checkSelfBulk, type CheckSelfBulkResponse as BrowserBulkAnswer, type CheckSelfResponse as BrowserAnswer } from "@project-kessel/react-kessel-access-check/core/api-client.js";
import { OAuth2Server, type JwtTransform } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, host, principal, readGrant, rejection, startEngine, workspace, type RunningEngine } from "./helpers.js";
import { expectDocumented, openApiStats } from "./inventory-openapi.js";
import { DEFAULT_MAX_BODY_BYTES, REFUSED_BODY_SWALLOW_FACTOR } from "../src/http/api.js";

const ORG = "http-json-org";
const ENGINE_CLIENT_ID = "gatehouse-engine";

let store: Store;
let tenant: Tenant;
/** Unauthenticated mode: x-rh-identity names the caller (what a console gateway sends). */
let plain: RunningEngine;
/** OIDC mode: bearer tokens from a local issuer. */
let oidc: RunningEngine;
/** OIDC mode behind a gateway: the HTTP port also takes x-rh-identity from requests without a token. */
let gateway: RunningEngine;
let issuer: OAuth2Server;

const identity = (userId: string) => encodeIdentityHeader({ orgId: ORG, userId, username: userId });
const token = (sub: string) => {
  const transform: JwtTransform = (_header, payload) => Object.assign(payload, { sub, azp: "console", client_id: "console", aud: ENGINE_CLIENT_ID, org_id: ORG });
  return issuer.issuer.buildToken({ scopesOrTransform: transform, expiresIn: 3600 });
};

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  json: unknown;
}

/** One HTTP request; every JSON answer of an /api/kessel route is checked against openapi.yaml. */
async function send(engine: RunningEngine, method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers } };
  if (body !== undefined) init.body = body;
  const response = await fetch(`http://127.0.0.1:${engine.metricsPort}${path}`, init);
  const text = await response.text();
  const contentType = response.headers.get("content-type");
  const json = contentType === "application/json" ? (JSON.parse(text) as unknown) : undefined;
  if (json !== undefined) expectDocumented(method, path, response.status, json);
  return { status: response.status, contentType, text, json };
}
const post = (engine: RunningEngine, path: string, body: unknown, headers: Record<string, string> = {}) => send(engine, "POST", path, JSON.stringify(body), headers);

/** Runs `fn` with the browser's fetch carrying `headers`, as the console's gateway adds the session's identity. */
async function asCaller<T>(headers: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const realFetch = globalThis.fetch;
  vi.stubGlobal("fetch", (input: string | URL | Request, init: RequestInit = {}) => realFetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } }));
  try {
    return await fn();
  } finally {
    vi.unstubAllGlobals();
  }
}

async function waitForRevision(engine: RunningEngine, revision: number): Promise<void> {
  // A Check at least as fresh as the revision waits for the engine to apply it.
  const metadata = new Metadata();
  if (engine !== plain) metadata.set("authorization", `Bearer ${await token("alice")}`);
  await call(
    engine.client,
    "check",
    { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { resource: principal("alice") }, consistency: { atLeastAsFresh: { token: store.tokens.encode(revision) } } },
    metadata,
  );
}

beforeAll(async () => {
  store = await openStore({ pollIntervalMs: 50 });
  tenant = (await store.tenants.bootstrap(ORG)).value;
  const { revision } = await store.relationships.write(ORG, { touch: readGrant(tenant.defaultWorkspaceId, "alice") });
  issuer = new OAuth2Server();
  await issuer.issuer.keys.generate("RS256");
  await issuer.start(0, "127.0.0.1");
  const authn = { mode: "oidc", serverUrl: issuer.issuer.url as string, clientId: ENGINE_CLIENT_ID, insecureClient: true } as const;
  [plain, oidc, gateway] = await Promise.all([startEngine({}, store), startEngine({ authn }, store), startEngine({ authn, http: { trustIdentityHeader: true } }, store)]);
  await Promise.all([waitForRevision(plain, revision), waitForRevision(oidc, revision), waitForRevision(gateway, revision)]);
});

afterAll(async () => {
  await Promise.all([plain?.close(), oidc?.close(), gateway?.close()]);
  await issuer?.stop();
  await store?.close();
});

const apiConfig = (engine: RunningEngine) => ({ baseUrl: `http://127.0.0.1:${engine.metricsPort}`, apiPath: "/api/kessel/v1beta2" });
const defaultWorkspace = () => ({ id: tenant.defaultWorkspaceId, type: "workspace", reporter: { type: "rbac" } });

describe("the browser client (@project-kessel/react-kessel-access-check) against the engine", () => {
  for (const [mode, engineOf, credentialsFor] of [
    ["x-rh-identity", () => plain, async (user: string) => ({ "x-rh-identity": identity(user) })],
    ["a bearer token", () => oidc, async (user: string) => ({ authorization: `Bearer ${await token(user)}` })],
  ] as const) {
    it(`checkself answers allowed and denied for the caller named by ${mode}`, async () => {
      const engine = engineOf();
      const allowed = await asCaller(await credentialsFor("alice"), () => checkSelf(apiConfig(engine), { relation: "view", resource: defaultWorkspace() }));
      expect(allowed.allowed).toBe("ALLOWED_TRUE");
      expect(allowed.consistencyToken?.token).toBeTruthy();
      const denied = await asCaller(await credentialsFor("dave"), () => checkSelf(apiConfig(engine), { relation: "view", resource: defaultWorkspace() }));
      expect(denied.allowed).toBe("ALLOWED_FALSE");
    });

    it(`checkselfbulk answers each item for the caller named by ${mode}, in order`, async () => {
      const engine = engineOf();
      const other = { id: "ws-nobody-binds", type: "workspace", reporter: { type: "rbac" } };
      const answer = await asCaller<BrowserBulkAnswer>(await credentialsFor("alice"), () =>
        checkSelfBulk(apiConfig(engine), {
          items: [
            { resource: defaultWorkspace(), relation: "view" },
            { resource: other, relation: "view" },
            { resource: defaultWorkspace(), relation: "inventory_host_view" },
          ],
        }),
      );
      expect(answer.pairs.map((p) => p.item?.allowed)).toEqual(["ALLOWED_TRUE", "ALLOWED_FALSE", "ALLOWED_TRUE"]);
      expect(answer.pairs[1]?.request.object.resourceId).toBe("ws-nobody-binds");
      expect(answer.consistencyToken?.token).toBeTruthy();
    });
  }

  it("a consistency token round trip: a grant written now is seen by a check at least as fresh as its token", async () => {
    const { revision } = await store.relationships.write(ORG, { touch: readGrant(tenant.defaultWorkspaceId, "erin") });
    const fresh = { atLeastAsFresh: { token: store.tokens.encode(revision) } };
    const first = await asCaller<BrowserAnswer>({ "x-rh-identity": identity("erin") }, () =>
      checkSelf(apiConfig(plain), { relation: "view", resource: defaultWorkspace(), options: { consistency: fresh } }),
    );
    expect(first.allowed).toBe("ALLOWED_TRUE");
    // The token the answer carries is accepted back, by both calls of the client.
    const again = await asCaller<BrowserBulkAnswer>({ "x-rh-identity": identity("erin") }, () =>
      checkSelfBulk(apiConfig(plain), { items: [{ resource: defaultWorkspace(), relation: "view" }], consistency: { atLeastAsFresh: first.consistencyToken! } }),
    );
    expect(again.pairs[0]?.item.allowed).toBe("ALLOWED_TRUE");
    expect(store.tokens.decode(again.consistencyToken!.token)).toBeGreaterThanOrEqual(revision);
  });

  it("without credentials the client gets upstream's 401 body; a foreign token is refused too", async () => {
    const noCredentials = await rejectionOf(checkSelf(apiConfig(oidc), { relation: "view", resource: defaultWorkspace() }));
    expect(noCredentials).toMatchObject({ code: 401, reason: "UNAUTHORIZED", metadata: {} });
    const anonymous = await rejectionOf(checkSelf(apiConfig(plain), { relation: "view", resource: defaultWorkspace() }));
    expect(anonymous).toMatchObject({ code: 401, message: expect.stringContaining("self subject missing") });
    const forged = await rejectionOf(asCaller({ authorization: "Bearer not-a-token" }, () => checkSelf(apiConfig(oidc), { relation: "view", resource: defaultWorkspace() })));
    expect(forged).toMatchObject({ code: 401, reason: "UNAUTHORIZED" });
  });
});

describe("OIDC behind a gateway (http.trustIdentityHeader)", () => {
  it("the HTTP port takes x-rh-identity without a token; a token, when sent, wins; the gRPC port never takes the header", async () => {
    const asAlice = await asCaller<BrowserAnswer>({ "x-rh-identity": identity("alice") }, () => checkSelf(apiConfig(gateway), { relation: "view", resource: defaultWorkspace() }));
    expect(asAlice.allowed).toBe("ALLOWED_TRUE");
    const tokenWins = await asCaller<BrowserAnswer>({ "x-rh-identity": identity("alice"), authorization: `Bearer ${await token("dave")}` }, () =>
      checkSelf(apiConfig(gateway), { relation: "view", resource: defaultWorkspace() }),
    );
    expect(tokenWins.allowed).toBe("ALLOWED_FALSE");
    const noUser = await send(gateway, "POST", "/api/kessel/v1beta2/checkself", JSON.stringify({ object: workspace(tenant.defaultWorkspaceId), relation: "view" }), {
      "x-rh-identity": Buffer.from(JSON.stringify({ identity: { org_id: ORG, type: "User" } })).toString("base64"),
    });
    expect(noUser.json).toMatchObject({ code: 401, reason: "UNAUTHORIZED" });
    const header = new Metadata();
    header.set("x-rh-identity", identity("alice"));
    const overGrpc = await rejection(call(gateway.client, "checkSelf", { object: workspace(tenant.defaultWorkspaceId), relation: "view" }, header));
    expect(overGrpc.code).toBe(status.UNAUTHENTICATED);
  });
});

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

// ---- the same question over gRPC and HTTP ----

type Fns<T> = BinaryMessageFns<T>;
interface RouteCase<Req, Res> {
  rpc: "check" | "checkForUpdate" | "checkBulk" | "checkForUpdateBulk" | "checkSelf" | "checkSelfBulk" | "reportResource" | "deleteResource";
  method: "POST" | "DELETE";
  path: string;
  messages: [string, Fns<Req>, string, Fns<Res>];
  /** A question with an answer, and one the engine refuses. */
  requests: () => { ok: Req[]; refused: Req };
  /** Puts the state back before each transport asks (a delete needs something to delete). */
  before?: () => Promise<unknown>;
}
const v1beta2 = (name: string) => `kessel.inventory.v1beta2.${name}`;
const routeCase = <Req, Res>(c: RouteCase<Req, Res>) => c as unknown as RouteCase<unknown, unknown>;

const alice = () => ({ resource: principal("alice") });
const checkOf = (userId: string, relation = "view") => ({ object: workspace(tenant.defaultWorkspaceId), relation, subject: { resource: principal(userId) } });

const ROUTES = [
  routeCase<CheckRequest, CheckResponse>({
    rpc: "check",
    method: "POST",
    path: "/api/kessel/v1beta2/check",
    messages: [v1beta2("CheckRequest"), CheckRequest, v1beta2("CheckResponse"), CheckResponse],
    requests: () => ({ ok: [CheckRequest.fromPartial(checkOf("alice")), CheckRequest.fromPartial(checkOf("dave"))], refused: CheckRequest.fromPartial({ ...checkOf("alice"), relation: "" }) }),
  }),
  routeCase<CheckForUpdateRequest, CheckForUpdateResponse>({
    rpc: "checkForUpdate",
    method: "POST",
    path: "/api/kessel/v1beta2/checkforupdate",
    messages: [v1beta2("CheckForUpdateRequest"), CheckForUpdateRequest, v1beta2("CheckForUpdateResponse"), CheckForUpdateResponse],
    requests: () => ({
      ok: [CheckForUpdateRequest.fromPartial(checkOf("alice")), CheckForUpdateRequest.fromPartial(checkOf("dave"))],
      refused: CheckForUpdateRequest.fromPartial({ ...checkOf("alice"), object: { resourceType: "no_such_type", resourceId: "x", reporter: { type: "rbac" } } }),
    }),
  }),
  routeCase<CheckBulkRequest, CheckBulkResponse>({
    rpc: "checkBulk",
    method: "POST",
    path: "/api/kessel/v1beta2/checkbulk",
    messages: [v1beta2("CheckBulkRequest"), CheckBulkRequest, v1beta2("CheckBulkResponse"), CheckBulkResponse],
    requests: () => ({
      ok: [CheckBulkRequest.fromPartial({ items: [checkOf("alice"), checkOf("dave"), checkOf("alice", "inventory_host_view")] })],
      refused: CheckBulkRequest.fromPartial({ items: [] }),
    }),
  }),
  routeCase<CheckForUpdateBulkRequest, CheckForUpdateBulkResponse>({
    rpc: "checkForUpdateBulk",
    method: "POST",
    path: "/api/kessel/v1beta2/checkforupdatebulk",
    messages: [v1beta2("CheckForUpdateBulkRequest"), CheckForUpdateBulkRequest, v1beta2("CheckForUpdateBulkResponse"), CheckForUpdateBulkResponse],
    requests: () => ({
      ok: [CheckForUpdateBulkRequest.fromPartial({ items: [checkOf("alice"), checkOf("dave")] })],
      refused: CheckForUpdateBulkRequest.fromPartial({ items: [{ ...checkOf("alice"), subject: {} }] }),
    }),
  }),
  routeCase<CheckSelfRequest, CheckSelfResponse>({
    rpc: "checkSelf",
    method: "POST",
    path: "/api/kessel/v1beta2/checkself",
    messages: [v1beta2("CheckSelfRequest"), CheckSelfRequest, v1beta2("CheckSelfResponse"), CheckSelfResponse],
    requests: () => ({
      ok: [CheckSelfRequest.fromPartial({ object: workspace(tenant.defaultWorkspaceId), relation: "view" }), CheckSelfRequest.fromPartial({ object: workspace("ws-elsewhere"), relation: "view" })],
      refused: CheckSelfRequest.fromPartial({ relation: "view" }),
    }),
  }),
  routeCase<CheckSelfBulkRequest, CheckSelfBulkResponse>({
    rpc: "checkSelfBulk",
    method: "POST",
    path: "/api/kessel/v1beta2/checkselfbulk",
    messages: [v1beta2("CheckSelfBulkRequest"), CheckSelfBulkRequest, v1beta2("CheckSelfBulkResponse"), CheckSelfBulkResponse],
    requests: () => ({
      ok: [
        CheckSelfBulkRequest.fromPartial({
          items: [
            { object: workspace(tenant.defaultWorkspaceId), relation: "view" },
            { object: workspace("ws-elsewhere"), relation: "view" },
          ],
        }),
      ],
      refused: CheckSelfBulkRequest.fromPartial({ items: [{ object: workspace(tenant.defaultWorkspaceId), relation: "" }] }),
    }),
  }),
  routeCase<ReportResourceRequest, ReportResourceResponse>({
    rpc: "reportResource",
    method: "POST",
    path: "/api/kessel/v1beta2/resources",
    messages: [v1beta2("ReportResourceRequest"), ReportResourceRequest, v1beta2("ReportResourceResponse"), ReportResourceResponse],
    requests: () => ({
      ok: [
        ReportResourceRequest.fromPartial({
          type: "host",
          reporterType: "hbi",
          reporterInstanceId: "hbi-1",
          writeVisibility: WriteVisibility.IMMEDIATE,
          representations: { metadata: { localResourceId: "h-table", apiHref: "https://hbi/h-table" }, common: { workspace_id: tenant.defaultWorkspaceId } },
        }),
      ],
      refused: ReportResourceRequest.fromPartial({ type: "host", reporterType: "hbi", reporterInstanceId: "hbi-1", representations: { common: { workspace_id: tenant.defaultWorkspaceId } } }),
    }),
  }),
  routeCase<DeleteResourceRequest, DeleteResourceResponse>({
    rpc: "deleteResource",
    method: "DELETE",
    path: "/api/kessel/v1beta2/resources",
    messages: [v1beta2("DeleteResourceRequest"), DeleteResourceRequest, v1beta2("DeleteResourceResponse"), DeleteResourceResponse],
    requests: () => ({ ok: [DeleteResourceRequest.fromPartial({ reference: host("h-table") })], refused: DeleteResourceRequest.fromPartial({ reference: { resourceType: "host", resourceId: "" } }) }),
    before: () =>
      call(plain.client, "reportResource", {
        type: "host",
        reporterType: "hbi",
        reporterInstanceId: "hbi-1",
        writeVisibility: WriteVisibility.IMMEDIATE,
        representations: { metadata: { localResourceId: "h-table", apiHref: "https://hbi/h-table" }, common: { workspace_id: tenant.defaultWorkspaceId } },
      }),
  }),
];

describe("the same question over gRPC and over HTTP gives the same answer", () => {
  const metadata = () => {
    const m = new Metadata();
    m.set("x-rh-identity", identity("alice"));
    return m;
  };
  for (const route of ROUTES) {
    it(`${route.method} ${route.path} = ${route.rpc}`, async () => {
      const [requestName, requestFns, responseName, responseFns] = route.messages;
      const requestJson = protoJsonCodec(requestName, requestFns);
      const responseJson = protoJsonCodec(responseName, responseFns);
      const { ok, refused } = route.requests();
      for (const request of ok) {
        await route.before?.();
        const overGrpc = await call(plain.client, route.rpc, request as never, metadata());
        await route.before?.();
        const overHttp = await send(plain, route.method, route.path, JSON.stringify(requestJson.write(request)), { "x-rh-identity": identity("alice") });
        expect(overHttp.status).toBe(200);
        expect(overHttp.json).toEqual(responseJson.write(overGrpc));
      }
      const grpcError = await rejection(call(plain.client, route.rpc, refused as never, metadata()));
      const httpError = await send(plain, route.method, route.path, JSON.stringify(requestJson.write(refused)), { "x-rh-identity": identity("alice") });
      expect(grpcError.code).toBe(status.INVALID_ARGUMENT);
      expect(httpError.status).toBe(400);
      expect(httpError.json).toEqual({ code: 400, reason: expect.any(String), message: grpcError.details, metadata: {} });
    });
  }

  it("protobuf JSON as upstream writes it: enum names, lowerCamelCase, every field present", async () => {
    const answer = await post(plain, "/api/kessel/v1beta2/checkbulk", { items: [checkOf("alice")] });
    expect(answer.json).toEqual({
      pairs: [{ request: { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { relation: undefined, ...alice() } }, item: { allowed: "ALLOWED_TRUE" } }],
      consistencyToken: { token: expect.any(String) },
    });
    // proto field names are read too, and enums by number, as protojson reads them.
    const snake = await post(plain, "/api/kessel/v1beta2/check", {
      object: { resource_type: "workspace", resource_id: tenant.defaultWorkspaceId, reporter: { type: "rbac" } },
      relation: "view",
      subject: { resource: { resource_type: "principal", resource_id: "redhat/alice", reporter: { type: "rbac" } } },
    });
    expect(snake.json).toMatchObject({ allowed: "ALLOWED_TRUE" });
    expect(Allowed.ALLOWED_TRUE).toBe(1);
  });

  it("writes through HTTP obey the same write policy: an OIDC caller that is no registered reporter is refused", async () => {
    const before = await store.feed.headRevision();
    const answer = await send(
      oidc,
      "POST",
      "/api/kessel/v1beta2/resources",
      JSON.stringify({
        type: "host",
        reporterType: "hbi",
        reporterInstanceId: "hbi-1",
        representations: { metadata: { localResourceId: "h-oidc", apiHref: "https://hbi/h" }, common: { workspace_id: tenant.defaultWorkspaceId } },
      }),
      { authorization: `Bearer ${await token("alice")}` },
    );
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ code: 403, reason: "" });
    expect(await store.feed.headRevision()).toBe(before);
  });
});

describe("bad input gets upstream's 4xx shapes, changes nothing and echoes nothing unbounded", () => {
  const withAlice = { "x-rh-identity": "" };
  beforeAll(() => {
    withAlice["x-rh-identity"] = identity("alice");
  });
  const longText = "q".repeat(200_000);
  const cases: Array<{ name: string; body: () => string | Uint8Array; headers?: Record<string, string>; status: number; reason: string }> = [
    { name: "malformed JSON", body: () => '{"object": {"resourceType": "workspace"', status: 400, reason: "CODEC" },
    { name: "a JSON array", body: () => "[1, 2]", status: 400, reason: "CODEC" },
    { name: "a number where a string goes", body: () => JSON.stringify({ ...checkOf("alice"), relation: 5 }), status: 400, reason: "CODEC" },
    { name: "a string where a message goes", body: () => JSON.stringify({ ...checkOf("alice"), object: longText }), status: 400, reason: "CODEC" },
    { name: "a long value in the wrong type", body: () => JSON.stringify({ ...checkOf("alice"), consistency: { minimizeLatency: longText } }), status: 400, reason: "CODEC" },
    { name: "an object where a bool goes", body: () => JSON.stringify({ ...checkOf("alice"), consistency: { minimizeLatency: {} } }), status: 400, reason: "CODEC" },
    { name: "invalid UTF-8", body: () => Buffer.concat([Buffer.from('{"relation": "vi'), Buffer.from([0xff, 0xfe]), Buffer.from('ew"}')]), status: 400, reason: "CODEC" },
    { name: "an unpaired surrogate escape", body: () => JSON.stringify({ ...checkOf("alice"), relation: "\\ud800" }).replace("\\\\ud800", "\\ud800"), status: 400, reason: "CODEC" },
    { name: "no content type", body: () => JSON.stringify(checkOf("alice")), headers: { "content-type": "" }, status: 400, reason: "CODEC" },
    { name: "a form body", body: () => "relation=view", headers: { "content-type": "application/x-www-form-urlencoded" }, status: 400, reason: "CODEC" },
    { name: "an oversize body", body: () => JSON.stringify({ ...checkOf("alice"), padding: "p".repeat(5 * 1024 * 1024) }), status: 413, reason: "CODEC" },
    { name: "a field rule (empty relation)", body: () => JSON.stringify({ ...checkOf("alice"), relation: "" }), status: 400, reason: "VALIDATOR" },
    { name: "an overlong relation", body: () => JSON.stringify({ ...checkOf("alice"), relation: longText }), status: 400, reason: "VALIDATOR" },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.status} ${c.reason}`, async () => {
      const answer = await send(plain, "POST", "/api/kessel/v1beta2/check", c.body(), { ...withAlice, ...c.headers });
      expect(answer.status).toBe(c.status);
      expect(answer.json).toMatchObject({ code: c.status, reason: c.reason, metadata: {} });
      expect(answer.text.length).toBeLessThan(1200);
      expect(answer.text).not.toContain("qqqqqqqqqq");
    });
  }

  it("unknown fields are ignored, as upstream's codec (DiscardUnknown) does", async () => {
    const answer = await post(plain, "/api/kessel/v1beta2/check", { ...checkOf("alice"), notAField: { deeply: [1] } });
    expect(answer.json).toMatchObject({ allowed: "ALLOWED_TRUE" });
  });

  it("a refused write changes nothing", async () => {
    const before = await store.feed.headRevision();
    const bodies = [
      '{"type": "host", "reporterType": "hbi"',
      JSON.stringify({ type: "host", reporterType: "hbi", reporterInstanceId: 7 }),
      JSON.stringify({ type: "host", reporterType: "hbi", reporterInstanceId: "i", representations: { metadata: { localResourceId: "h-bad", apiHref: "" } } }),
      JSON.stringify({
        type: "host",
        reporterType: "hbi",
        reporterInstanceId: "i",
        representations: { metadata: { localResourceId: "h-bad\\udc00", apiHref: "https://x" }, common: { workspace_id: tenant.defaultWorkspaceId } },
      }).replace("\\\\udc00", "\\udc00"),
    ];
    for (const body of bodies) {
      const answer = await send(plain, "POST", "/api/kessel/v1beta2/resources", body, withAlice);
      expect(answer.status).toBe(400);
    }
    const deleted = await send(plain, "DELETE", "/api/kessel/v1beta2/resources", '{"reference": 1}', withAlice);
    expect(deleted.status).toBe(400);
    expect(await store.feed.headRevision()).toBe(before);
  });

  it("unknown routes and methods answer 404 as Go's router does; no CORS headers (a cross-origin page is refused)", async () => {
    for (const [method, path] of [
      ["POST", "/api/kessel/v1beta2/nothing"],
      ["GET", "/api/kessel/v1beta2/check"],
      ["PUT", "/api/kessel/v1beta2/resources"],
      ["OPTIONS", "/api/kessel/v1beta2/checkself"],
      ["POST", "/api/kessel/v1beta2/streamedlistobjects"],
    ] as const) {
      const answer = await send(plain, method, path, undefined, { origin: "https://elsewhere.example", "access-control-request-method": "POST" });
      expect(answer.status).toBe(404);
      expect(answer.text).toBe("404 page not found\n");
      expect(answer.contentType).toBe("text/plain; charset=utf-8");
    }
    const preflight = await fetch(`http://127.0.0.1:${plain.metricsPort}/api/kessel/v1beta2/checkself`, { method: "OPTIONS", headers: { origin: "https://elsewhere.example" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("the health routes of kessel.inventory.v1 answer without credentials", async () => {
    expect((await send(oidc, "GET", "/api/kessel/v1/livez")).json).toEqual({ status: "OK", code: 200 });
    expect((await send(oidc, "GET", "/api/kessel/v1/readyz")).json).toEqual({ status: "OK", code: 200 });
  });

  afterAll(() => {
    // Every JSON answer above went through the document's schemas.
    expect(openApiStats.validated).toBeGreaterThan(40);
  });
});

/**
 * A request on a socket of its own, written and read step by step (fetch leaves the order of
 * writing and reading to itself). Half-open: it goes on writing after the server ended its side,
 * as a client that sends its whole body before reading the answer does.
 */
class RawConnection {
  private readonly socket: Socket;
  private readonly received: Buffer[] = [];
  /** The connection's first error (EPIPE, ECONNRESET: it was closed under the body). */
  error: (Error & { code?: string }) | undefined;
  /** Body bytes the socket took (writeBody). */
  written = 0;
  /** The server ended its side (or the connection closed). */
  readonly serverEnded: Promise<void>;
  readonly closed: Promise<void>;

  constructor(port: number) {
    this.socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
    this.socket.on("data", (chunk: Buffer) => this.received.push(chunk));
    this.socket.on("error", (error) => {
      this.error ??= error;
    });
    this.closed = new Promise((resolve) => this.socket.once("close", () => resolve()));
    this.serverEnded = Promise.race([new Promise<void>((resolve) => this.socket.once("end", () => resolve())), this.closed]);
  }

  /** Writes `bytes`; false once the connection failed. */
  write(bytes: string | Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      this.socket.write(bytes, (error) => {
        if (error) this.error ??= error;
        resolve(!error);
      });
    });
  }

  /** `total` body bytes in 64 KiB writes, each once the last was taken (as chunks of a chunked body if `chunked`); stops at the first failure. */
  async writeBody(total: number, chunked = false): Promise<void> {
    const piece = Buffer.alloc(64 * 1024, "p");
    for (let sent = 0; sent < total; ) {
      const part = piece.subarray(0, Math.min(piece.length, total - sent));
      if (!(await this.write(chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]) : part))) return;
      sent += part.length;
      this.written += part.length;
    }
  }

  /** Ends the client's side and waits for the connection to close. */
  async finish(): Promise<void> {
    this.socket.end();
    await this.closed;
  }

  /** The answer received: status, headers (lower-case names), the parsed JSON body. */
  answer(): { status: number; headers: Map<string, string>; json: unknown } {
    const text = Buffer.concat(this.received).toString("latin1");
    const [head = "", body = ""] = text.split("\r\n\r\n", 2);
    const [statusLine = "", ...lines] = head.split("\r\n");
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()] as [string, string]));
    return { status: Number(statusLine.split(" ")[1]), headers, json: JSON.parse(body.slice(0, Number(headers.get("content-length")))) };
  }
}

describe("a body the engine does not read: the answer reaches the client however it sends, and the rest is bounded", () => {
  const CHECK = "/api/kessel/v1beta2/check";
  const head = (headers: Record<string, string>) =>
    `POST ${CHECK} HTTP/1.1\r\nhost: engine\r\nx-rh-identity: ${identity("alice")}\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;
  const swallowed = REFUSED_BODY_SWALLOW_FACTOR * DEFAULT_MAX_BODY_BYTES;

  const expectRefusal = (connection: RawConnection, code: number) => {
    const answer = connection.answer();
    expect(answer.status).toBe(code);
    expect(answer.headers.get("connection")).toBe("close");
    expect(answer.json).toMatchObject({ code, reason: "CODEC" });
    expectDocumented("POST", CHECK, code, answer.json);
  };

  it("an oversize Content-Length → 413 before any body byte; a client that writes its whole body only after that answer sees no error", async () => {
    const connection = new RawConnection(plain.metricsPort);
    const declared = DEFAULT_MAX_BODY_BYTES + 1024 * 1024;
    await connection.write(head({ "content-type": "application/json", "content-length": String(declared) }));
    // The whole answer and the server's end of the connection first: the body comes after both.
    await connection.serverEnded;
    expectRefusal(connection, 413);
    await connection.writeBody(declared);
    await connection.finish();
    expect(connection.error).toBeUndefined();
    expect(connection.written).toBe(declared);
  });

  it("a chunked body that grows past the limit → 413 once read; the client goes on sending after the answer and sees no error", async () => {
    const connection = new RawConnection(plain.metricsPort);
    await connection.write(head({ "content-type": "application/json", "transfer-encoding": "chunked" }));
    // Just past the limit, then nothing until the answer and the server's end of the connection have
    // arrived; then another limit's worth and the last chunk.
    await connection.writeBody(DEFAULT_MAX_BODY_BYTES + 64 * 1024, true);
    await connection.serverEnded;
    expectRefusal(connection, 413);
    await connection.writeBody(DEFAULT_MAX_BODY_BYTES, true);
    await connection.write("0\r\n\r\n");
    await connection.finish();
    expect(connection.error).toBeUndefined();
    expect(connection.written).toBe(2 * DEFAULT_MAX_BODY_BYTES + 64 * 1024);
  });

  it("a body refused before it is read (no JSON content type) → 400; the body sent after the answer is taken without error", async () => {
    const connection = new RawConnection(plain.metricsPort);
    const declared = 1024 * 1024;
    await connection.write(head({ "content-type": "text/plain", "content-length": String(declared) }));
    await connection.serverEnded;
    expectRefusal(connection, 400);
    await connection.writeBody(declared);
    await connection.finish();
    expect(connection.error).toBeUndefined();
  });

  it("a client that never stops sending is cut once it sent the bounded rest; nothing of it is kept", async () => {
    const connection = new RawConnection(plain.metricsPort);
    const declared = 1024 * 1024 * 1024;
    await connection.write(head({ "content-type": "application/json", "content-length": String(declared) }));
    await connection.serverEnded;
    expectRefusal(connection, 413);
    // Socket buffers on both ends take some megabytes more before a write fails.
    const bound = swallowed + 64 * 1024 * 1024;
    await connection.writeBody(bound);
    await connection.closed;
    expect(["EPIPE", "ECONNRESET"]).toContain(connection.error?.code);
    expect(connection.written).toBeGreaterThan(swallowed);
    expect(connection.written).toBeLessThan(bound);
  });
});
