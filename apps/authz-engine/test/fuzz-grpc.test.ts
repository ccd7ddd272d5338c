// Generated hostile calls over every RPC of both services (inventory and KesselTupleService) and
// the HTTP/JSON routes: never INTERNAL/UNKNOWN or a 5xx, a refused write changes nothing (the
// store's head revision), replication never reaches Gatehouse's objects, and the engine keeps
// answering. FUZZ_COUNT sets the number of calls per service (default 2000 and 800; `pnpm fuzz`
// runs a long campaign); FUZZ_TUPLE_COUNT and FUZZ_HTTP_COUNT set one campaign's count apart
// (default FUZZ_COUNT); FUZZ_SEED replays one.
import { Client, credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceService, relations } from "@gatehouse/proto";
import type { Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, principal, readGrant, startEngine, workspace, type RunningEngine } from "./helpers.js";

const COUNT = Number(process.env["FUZZ_COUNT"] ?? 2000);
// Tuple-service calls are mostly store writes (slower than checks): fewer by default, as many under `pnpm fuzz`.
const TUPLE_COUNT = Number(process.env["FUZZ_TUPLE_COUNT"] ?? process.env["FUZZ_COUNT"] ?? 800);
const SEED = Number(process.env["FUZZ_SEED"] ?? 16);

function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]! };
}
type Gen = ReturnType<typeof generator>;

let engine: RunningEngine;
let tenant: Tenant;

beforeAll(async () => {
  engine = await startEngine();
  raw = new Client(`127.0.0.1:${engine.port}`, credentials.createInsecure());
  tenant = (await engine.store.tenants.bootstrap("fuzz-grpc-org")).value;
  const { revision } = await engine.store.relationships.write("fuzz-grpc-org", { touch: readGrant(tenant.defaultWorkspaceId, "alice") });
  await call(engine.client, "check", {
    object: workspace(tenant.defaultWorkspaceId),
    relation: "view",
    subject: { resource: principal("alice") },
    consistency: { atLeastAsFresh: { token: engine.store.tokens.encode(revision) } },
  });
});
afterAll(async () => {
  raw?.close();
  await engine?.close();
});

/** Sent as invalid UTF-8 (one of BAD_UTF8, in place of these bytes): what a client that does not check can put on the wire. */
const MARK = "@@@";
const BAD_UTF8 = [
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xc0, 0xaf, 0x41],
  [0xff, 0x41, 0x41],
  [0x41, 0xe2, 0x82],
];
const STRINGS = [
  MARK,
  `host-${MARK}`,
  "",
  "a",
  "z".repeat(100_000),
  "host",
  "workspace",
  "principal",
  "rbac",
  "hbi",
  "view",
  "t_workspace",
  "member",
  "*",
  "redhat/alice",
  "../x",
  "\u0000",
  "\ud800",
  "😀",
  "x".repeat(129),
  "y".repeat(2000),
  "a b",
  "A-Z_0",
  "-1",
  "null",
];
const TOKENS = ["", "garbage", "x".repeat(1025), "v1.", "GH1.abc", "eyJ9"];

function maybe<T>(g: Gen, value: () => T): T | undefined {
  return g.next() < 0.85 ? value() : undefined;
}
function str(g: Gen): string {
  return g.next() < 0.3 ? g.pick(["workspace", "host", "principal"]) : g.pick(STRINGS);
}
function ref(g: Gen) {
  return {
    resourceType: str(g),
    resourceId: g.next() < 0.3 ? g.pick([tenant.defaultWorkspaceId, "redhat/alice"]) : str(g),
    ...(g.next() < 0.9 ? { reporter: { type: g.pick(["rbac", "hbi", ...STRINGS]), ...(g.next() < 0.2 ? { instanceId: str(g) } : {}) } } : {}),
  };
}
function consistency(g: Gen) {
  const kind = g.int(6);
  if (kind === 0) return { minimizeLatency: g.next() < 0.5 };
  if (kind === 1) return { atLeastAsFresh: { token: g.pick(TOKENS) } };
  if (kind === 2) return { atLeastAsAcknowledged: g.next() < 0.5 };
  if (kind === 3) return {};
  if (kind === 4) return { minimizeLatency: true, atLeastAsFresh: { token: "t" } };
  return undefined;
}
function checkItem(g: Gen) {
  return { object: maybe(g, () => ref(g)), relation: str(g), subject: maybe(g, () => ({ resource: maybe(g, () => ref(g)), ...(g.next() < 0.2 ? { relation: str(g) } : {}) })) };
}

const RPCS = ["check", "checkForUpdate", "checkBulk", "checkForUpdateBulk", "checkSelf", "checkSelfBulk", "reportResource", "deleteResource", "streamedListObjects", "streamedListSubjects"] as const;

function request(g: Gen, rpc: (typeof RPCS)[number]): Record<string, unknown> {
  switch (rpc) {
    case "check":
    case "checkForUpdate":
      return { ...checkItem(g), ...(g.next() < 0.5 ? { consistency: consistency(g) } : {}) };
    case "checkBulk":
    case "checkForUpdateBulk":
      return { items: Array.from({ length: g.pick([0, 1, 2, 5, 1001]) }, () => checkItem(g)), ...(g.next() < 0.5 ? { consistency: consistency(g) } : {}) };
    case "checkSelf":
      return { object: maybe(g, () => ref(g)), relation: str(g) };
    case "checkSelfBulk":
      return { items: Array.from({ length: g.pick([0, 1, 3]) }, () => ({ object: maybe(g, () => ref(g)), relation: str(g) })) };
    case "reportResource":
      return {
        type: str(g),
        reporterType: g.pick(["hbi", ...STRINGS]),
        reporterInstanceId: str(g),
        representations: maybe(g, () => ({
          metadata: maybe(g, () => ({ localResourceId: str(g), apiHref: str(g), ...(g.next() < 0.2 ? { consoleHref: str(g) } : {}) })),
          common: g.next() < 0.5 ? { workspace_id: g.next() < 0.3 ? tenant.defaultWorkspaceId : g.pick([str(g), 5, null, { a: 1 }, ["x"]]) } : {},
        })),
        writeVisibility: g.pick([0, 1, 2, 7, -1]),
      };
    case "deleteResource":
      return { reference: maybe(g, () => ref(g)) };
    case "streamedListObjects":
      return {
        objectType: maybe(g, () => ({ resourceType: str(g), reporterType: g.pick(["hbi", "rbac", ...STRINGS]) })),
        relation: str(g),
        subject: maybe(g, () => ({ resource: maybe(g, () => ref(g)) })),
        ...(g.next() < 0.4 ? { pagination: { limit: g.pick([0, 1, 10, 4294967295]), continuationToken: g.pick(TOKENS) } } : {}),
        ...(g.next() < 0.3 ? { consistency: consistency(g) } : {}),
      };
    default:
      return {
        resource: maybe(g, () => ref(g)),
        relation: str(g),
        subjectType: maybe(g, () => ({ resourceType: str(g), reporterType: g.pick(["rbac", ...STRINGS]) })),
        ...(g.next() < 0.3 ? { subjectRelation: str(g) } : {}),
        ...(g.next() < 0.4 ? { pagination: { limit: g.pick([0, 1, 10]), continuationToken: g.pick(TOKENS) } } : {}),
      };
  }
}

function metadata(g: Gen): Metadata {
  const m = new Metadata();
  if (g.next() < 0.2) m.set("x-rh-identity", g.pick(["", "garbage", Buffer.from("{}").toString("base64")]));
  if (g.next() < 0.1) m.set("authorization", g.pick(["Bearer", "Bearer x", "Basic y"]));
  return m;
}

let raw: Client;

type MethodDefinition = { path: string; requestSerialize(v: unknown): Buffer; responseDeserialize(b: Buffer): unknown };

/** A unary call whose encoded bytes have every MARK replaced by invalid UTF-8. */
function invokeCorrupted(g: Gen, rpc: string, req: Record<string, unknown>, md: Metadata, options: object, service: object = KesselInventoryServiceService): Promise<status> {
  const method = (service as Record<string, MethodDefinition>)[rpc]!;
  const bad = Buffer.from(g.pick(BAD_UTF8));
  const serialize = (value: unknown) => {
    const bytes = method.requestSerialize(value);
    for (let at = bytes.indexOf(MARK); at >= 0; at = bytes.indexOf(MARK, at + 3)) bad.copy(bytes, at);
    return bytes;
  };
  return new Promise((resolve) => raw.makeUnaryRequest(method.path, serialize, method.responseDeserialize, req, md, options, (error) => resolve(error ? error.code : status.OK)));
}

async function invoke(g: Gen, rpc: (typeof RPCS)[number], req: Record<string, unknown>, md: Metadata): Promise<status> {
  const client = engine.client as unknown as Record<string, (...args: unknown[]) => unknown>;
  // No deadline: a call the engine never answers fails the test by its hang bound, and a slow
  // machine cannot fail one that is merely late.
  const options = {};
  if (rpc !== "streamedListObjects" && rpc !== "streamedListSubjects" && JSON.stringify(req).includes(MARK)) return invokeCorrupted(g, rpc, req, md, options);
  if (rpc === "streamedListObjects" || rpc === "streamedListSubjects") {
    const stream = client[rpc]!.call(engine.client, req, md, options) as AsyncIterable<unknown>;
    try {
      for await (const _ of stream) void _;
      return status.OK;
    } catch (error) {
      return (error as ServiceError).code;
    }
  }
  return new Promise((resolve) => {
    client[rpc]!.call(engine.client, req, md, options, (error: ServiceError | null) => resolve(error ? error.code : status.OK));
  });
}

interface FuzzCall {
  i: number;
  rpc: string;
  req: Record<string, unknown>;
  writes: boolean;
  send(): Promise<status>;
}

/**
 * Sends `count` generated calls (stopping at five failures) and returns the failures: INTERNAL,
 * UNKNOWN or a deadline; a refused write that changed the store (its head revision); invalid UTF-8
 * accepted by a write (it must be refused, never stored as U+FFFD). `codes` counts the answers.
 */
async function campaign(count: number, next: (i: number) => FuzzCall | undefined, codes: Map<string, number>, from = 0): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < count && failures.length < 5; i++) {
    const fuzz = next(i);
    if (!fuzz) continue;
    const before = fuzz.writes ? await engine.store.feed.headRevision() : 0;
    const code = await fuzz.send().catch(() => status.INTERNAL);
    codes.set(`${fuzz.rpc} ${status[code]}`, (codes.get(`${fuzz.rpc} ${status[code]}`) ?? 0) + 1);
    const label = `#${from + i} ${fuzz.rpc} ${JSON.stringify(fuzz.req).slice(0, 300)} → ${status[code]}`;
    if (code === status.INTERNAL || code === status.UNKNOWN || code === status.DEADLINE_EXCEEDED) failures.push(label);
    if (fuzz.writes && code !== status.OK && (await engine.store.feed.headRevision()) !== before) failures.push(`${label} changed the store`);
    if (fuzz.writes && code === status.OK && JSON.stringify(fuzz.req).includes(MARK)) failures.push(`${label} accepted invalid UTF-8`);
  }
  return failures;
}

/** Calls per test: a campaign runs as consecutive rounds (one generator across them, so the same calls
 * as one long run), each its own test, so a heavily loaded machine never meets the hang bound. */
const ROUND = 400;
function rounds(count: number): Array<{ from: number; n: number; calls: string }> {
  const out: Array<{ from: number; n: number; calls: string }> = [];
  for (let from = 0; from < count; from += ROUND) {
    const n = Math.min(ROUND, count - from);
    out.push({ from, n, calls: `${from + 1}-${from + n} of ${count}` });
  }
  return out;
}

describe("gRPC fuzz", () => {
  const g = generator(SEED);
  const codes = new Map<string, number>();
  it.each(rounds(COUNT))(`answers generated calls $calls without INTERNAL or UNKNOWN, changing nothing when refused`, async ({ from, n }) => {
    const failures = await campaign(
      n,
      (i) => {
        const rpc = g.pick(RPCS);
        let req: Record<string, unknown>;
        try {
          req = request(g, rpc);
        } catch {
          return undefined;
        }
        return { i: from + i, rpc, req, writes: rpc === "reportResource" || rpc === "deleteResource", send: () => invoke(g, rpc, req, metadata(g)) };
      },
      codes,
      from,
    );
    expect(failures).toEqual([]);
    const healthy = await call(engine.client, "check", { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { resource: principal("alice") } });
    expect(healthy.allowed).toBe(Allowed.ALLOWED_TRUE);
    if (process.env["FUZZ_COUNT"] && from + n >= COUNT) console.log("gRPC fuzz codes", Object.fromEntries([...codes].sort()));
  });
});

// KesselTupleService: what a replicator (or anyone, in unauthenticated mode) might send.
const TUPLE_RPCS = ["createTuples", "deleteTuples", "acquireLock", "readTuples"] as const;
const WRITES: ReadonlySet<string> = new Set(["createTuples", "deleteTuples", "acquireLock"]);
const NAMESPACES = ["rbac", "hbi", "kessel", "", ...STRINGS];
const TYPES = ["workspace", "tenant", "platform", "role", "role_binding", "group", "principal", "host", "lock", "lockversion", ...STRINGS];

function gatehouseIds(): string[] {
  return [tenant.defaultWorkspaceId, tenant.rootWorkspaceId, tenant.tenantId, tenant.platformDefaultGroupId, tenant.adminDefaultGroupId, "local", "redhat/alice", "*"];
}
function objectRef(g: Gen) {
  return {
    type: maybe(g, () => ({ namespace: g.pick(NAMESPACES), name: g.pick(TYPES) })),
    id: g.next() < 0.4 ? g.pick(gatehouseIds()) : str(g),
  };
}
function tupleOf(g: Gen) {
  return {
    resource: maybe(g, () => objectRef(g)),
    relation: g.pick(["parent", "binding", "role", "subject", "member", "version", "t_parent", "inventory_hosts_write", ...STRINGS]),
    subject: maybe(g, () => ({ subject: maybe(g, () => objectRef(g)), ...(g.next() < 0.2 ? { relation: str(g) } : {}) })),
  };
}
function tupleFilter(g: Gen) {
  return {
    ...(g.next() < 0.6 ? { resourceNamespace: g.pick(NAMESPACES) } : {}),
    ...(g.next() < 0.6 ? { resourceType: g.pick(TYPES) } : {}),
    ...(g.next() < 0.5 ? { resourceId: g.next() < 0.4 ? g.pick(gatehouseIds()) : str(g) } : {}),
    ...(g.next() < 0.4 ? { relation: str(g) } : {}),
    ...(g.next() < 0.3 ? { subjectFilter: { subjectNamespace: g.pick(NAMESPACES), subjectType: g.pick(TYPES), ...(g.next() < 0.5 ? { subjectId: str(g) } : {}) } } : {}),
  };
}
function fencing(g: Gen) {
  return g.next() < 0.25 ? { fencingCheck: { lockId: g.pick(["fuzz-lock", ...STRINGS]), lockToken: g.pick(["forged", ...TOKENS]) } } : {};
}
function tupleRequest(g: Gen, rpc: (typeof TUPLE_RPCS)[number]): Record<string, unknown> {
  switch (rpc) {
    case "createTuples":
      // Past the per-call bound with one small tuple repeated: a client's encoding of 10,001 random
      // (up to 100,000-character) tuples would take longer than any deadline.
      if (g.next() < 0.03)
        return {
          tuples: Array.from({ length: 10_001 }, () => ({
            resource: { type: { namespace: "rbac", name: "workspace" }, id: "w" },
            relation: "parent",
            subject: { subject: { type: { namespace: "rbac", name: "workspace" }, id: "p" } },
          })),
          upsert: true,
        };
      return { tuples: Array.from({ length: g.pick([0, 1, 2, 3]) }, () => tupleOf(g)), upsert: g.next() < 0.5, ...fencing(g) };
    case "deleteTuples":
      return { filter: maybe(g, () => tupleFilter(g)), ...fencing(g) };
    case "acquireLock":
      return { lockId: g.pick(["fuzz-lock", ...STRINGS]) };
    default:
      return {
        filter: maybe(g, () => tupleFilter(g)),
        ...(g.next() < 0.4 ? { pagination: { limit: g.pick([0, 1, 10, 4294967295]), ...(g.next() < 0.5 ? { continuationToken: g.pick(TOKENS) } : {}) } } : {}),
        ...(g.next() < 0.3 ? { consistency: g.pick([{}, { minimizeLatency: true }, { atLeastAsFresh: { token: g.pick(TOKENS) } }]) } : {}),
      };
  }
}

describe("gRPC fuzz of KesselTupleService", () => {
  let tuples: relations.KesselTupleServiceClient;
  beforeAll(() => {
    tuples = new relations.KesselTupleServiceClient(`127.0.0.1:${engine.port}`, credentials.createInsecure());
  });
  afterAll(() => tuples?.close());

  async function invokeTuples(g: Gen, rpc: (typeof TUPLE_RPCS)[number], req: Record<string, unknown>, md: Metadata): Promise<status> {
    const options = {};
    if (rpc !== "readTuples" && JSON.stringify(req).includes(MARK)) return invokeCorrupted(g, rpc, req, md, options, relations.KesselTupleServiceService);
    if (rpc === "readTuples") {
      try {
        for await (const _ of tuples.readTuples(relations.ReadTuplesRequest.fromPartial(req), md, options)) void _;
        return status.OK;
      } catch (error) {
        return (error as ServiceError).code;
      }
    }
    const client = tuples as unknown as Record<string, (...args: unknown[]) => unknown>;
    return new Promise((resolve) => {
      client[rpc]!.call(tuples, req, md, options, (error: ServiceError | null) => resolve(error ? error.code : status.OK));
    });
  }

  const g = generator(SEED + 1);
  const codes = new Map<string, number>();
  let own: Awaited<ReturnType<typeof engine.store.relationships.read>>;
  beforeAll(async () => {
    own = await engine.store.relationships.read("fuzz-grpc-org", {});
  });
  it.each(rounds(TUPLE_COUNT))(`answers generated calls $calls without INTERNAL or UNKNOWN, changing nothing when refused`, async ({ from, n }) => {
    const failures = await campaign(
      n,
      (i) => {
        const rpc = g.pick(TUPLE_RPCS);
        const req = tupleRequest(g, rpc);
        return { i: from + i, rpc, req, writes: WRITES.has(rpc), send: () => invokeTuples(g, rpc, req, metadata(g)) };
      },
      codes,
      from,
    );
    expect(failures).toEqual([]);
  });
  it("after the campaign, never reached Gatehouse's objects", async () => {
    // Gatehouse's own tenant is as it was, and no replicated tuple names one of its objects.
    expect(await engine.store.relationships.read("fuzz-grpc-org", {})).toEqual(own);
    for (const id of gatehouseIds().filter((id) => id !== "redhat/alice" && id !== "*")) {
      expect(await engine.store.replicated.read({ resourceId: id }), id).toEqual([]);
      expect(
        (await engine.store.replicated.read({ subjectId: id })).filter((t) => t.subjectType !== "rbac/principal"),
        id,
      ).toEqual([]);
    }
    const healthy = await call(engine.client, "check", { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { resource: principal("alice") } });
    expect(healthy.allowed).toBe(Allowed.ALLOWED_TRUE);
    if (process.env["FUZZ_COUNT"]) console.log("KesselTupleService fuzz codes", Object.fromEntries([...codes].sort()));
  });
});

// The same generated requests as JSON over the HTTP/JSON interface, with the body corrupted in
// the ways a browser or proxy can: invalid UTF-8, unpaired surrogate escapes, truncation, wrong
// types, a wrong content type. Never a 5xx; a refused write changes nothing.
const HTTP_ROUTES: Partial<Record<(typeof RPCS)[number], [string, string]>> = {
  check: ["POST", "/api/kessel/v1beta2/check"],
  checkForUpdate: ["POST", "/api/kessel/v1beta2/checkforupdate"],
  checkBulk: ["POST", "/api/kessel/v1beta2/checkbulk"],
  checkForUpdateBulk: ["POST", "/api/kessel/v1beta2/checkforupdatebulk"],
  checkSelf: ["POST", "/api/kessel/v1beta2/checkself"],
  checkSelfBulk: ["POST", "/api/kessel/v1beta2/checkselfbulk"],
  reportResource: ["POST", "/api/kessel/v1beta2/resources"],
  deleteResource: ["DELETE", "/api/kessel/v1beta2/resources"],
};

/** The request's JSON, maybe corrupted; `badText`: it carries invalid UTF-8 or an unpaired surrogate. */
function httpBody(g: Gen, req: Record<string, unknown>): { body: Buffer; badText: boolean } {
  const text = JSON.stringify(req);
  const marked = text.includes(MARK);
  switch (g.int(8)) {
    case 0:
      return { body: Buffer.from(text.slice(0, g.int(text.length))), badText: false };
    case 1:
      return { body: Buffer.from(text.replace(/"relation":"[^"]*"/, `"relation":${g.pick(["5", "[1]", "{}", "true", "null"])}`)), badText: false };
    case 2:
      return { body: Buffer.from(text.replaceAll(MARK, g.pick(["\\ud800", "\\udfff", "\\ud83d"]))), badText: marked };
    default: {
      // Invalid UTF-8 where MARK stands, as raw bytes.
      const parts = text.split(MARK).map((part) => Buffer.from(part));
      const bad = Buffer.from(g.pick(BAD_UTF8));
      return { body: Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [bad, part]))), badText: marked };
    }
  }
}

function httpHeaders(g: Gen): Record<string, string> {
  const headers: Record<string, string> = { "content-type": g.next() < 0.9 ? "application/json" : g.pick(["text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-8"]) };
  if (g.next() < 0.5)
    headers["x-rh-identity"] =
      g.next() < 0.7 ? Buffer.from(JSON.stringify({ identity: { org_id: "fuzz-grpc-org", type: "User", user: { user_id: "alice" } } })).toString("base64") : g.pick(["", "garbage", "e30="]);
  if (g.next() < 0.1) headers["authorization"] = g.pick(["Bearer", "Bearer x", "Basic y"]);
  return headers;
}

// Each HTTP request costs more here (bodies of up to tens of MB are built and refused), so the
// default run is shorter; FUZZ_HTTP_COUNT (else FUZZ_COUNT) sets it.
const HTTP_COUNT = Number(process.env["FUZZ_HTTP_COUNT"] ?? process.env["FUZZ_COUNT"] ?? 200);

describe("HTTP/JSON fuzz", () => {
  it(
    `answers ${HTTP_COUNT} generated requests without a 5xx, changing nothing when refused`,
    async () => {
      const g = generator(SEED + 1);
      const failures: string[] = [];
      const statuses = new Map<string, number>();
      const rpcs = RPCS.filter((rpc) => HTTP_ROUTES[rpc]);
      for (let i = 0; i < HTTP_COUNT && failures.length < 5; i++) {
        const rpc = g.pick(rpcs);
        const [method, path] = HTTP_ROUTES[rpc]!;
        let body: Buffer;
        let badText: boolean;
        try {
          ({ body, badText } = httpBody(g, request(g, rpc)));
        } catch {
          continue;
        }
        const writes = rpc === "reportResource" || rpc === "deleteResource";
        const before = writes ? await engine.store.feed.headRevision() : 0;
        const response = await fetch(`http://127.0.0.1:${engine.metricsPort}${path}`, { method, headers: httpHeaders(g), body });
        const text = await response.text();
        statuses.set(`${rpc} ${response.status}`, (statuses.get(`${rpc} ${response.status}`) ?? 0) + 1);
        const label = `#${i} ${method} ${path} ${body.toString("latin1").slice(0, 300)} → ${response.status} ${text.slice(0, 200)}`;
        if (response.status >= 500) failures.push(label);
        if (response.status !== 200 && (JSON.parse(text) as { code: number }).code !== response.status) failures.push(`${label}: body code differs`);
        if (text.length > 4096) failures.push(`${label}: answer of ${text.length} characters`);
        if (writes && response.status !== 200 && (await engine.store.feed.headRevision()) !== before) failures.push(`${label} changed the store`);
        // Text is refused, never stored altered (as U+FFFD).
        if (badText && response.status === 200 && writes) failures.push(`${label} accepted invalid text`);
      }
      expect(failures).toEqual([]);
      const healthy = await call(engine.client, "check", { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { resource: principal("alice") } });
      expect(healthy.allowed).toBe(Allowed.ALLOWED_TRUE);
      if (process.env["FUZZ_COUNT"] || process.env["FUZZ_HTTP_COUNT"]) console.log("HTTP fuzz statuses", Object.fromEntries([...statuses].sort()));
    },
    Math.max(600_000, HTTP_COUNT * 1000),
  );
});
