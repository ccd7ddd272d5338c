// Generated hostile requests over every route: never a 5xx, v2 errors are problem+json, a refused
// request changes nothing (the store's head revision), and the service keeps answering.
// FUZZ_COUNT sets the number of requests (default 2000; `pnpm fuzz` runs a long campaign).
import { request as httpRequest } from "node:http";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { openTestStore, type TestStore } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

const COUNT = Number(process.env["FUZZ_COUNT"] ?? 2000);
const SEED = Number(process.env["FUZZ_SEED"] ?? 16);
const V1 = "/api/rbac/v1";

/** mulberry32: a small seeded generator, so a failure can be replayed with FUZZ_SEED. */
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
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

let app: TestApp;
let store: TestStore;
let identity: string;
let known: { workspace: string; role: string; group: string };

beforeAll(async () => {
  store = await openTestStore({ name: "pglite" }, { domain: "redhat", workspaceDepthLimit: 5 });
  app = await startApp({ logLevel: "silent" }, { store, backend: "pglite" });
  const as = { org: "fuzz-org", user: "fuzz-admin", admin: true };
  identity = encodeIdentityHeader({ orgId: as.org, userId: as.user, username: as.user, isOrgAdmin: true });
  const ws = await app.request("POST", `${V2}/workspaces/`, { as, body: { name: "fuzz target" } });
  const role = await app.request("POST", `${V2}/roles/`, { as, body: { name: "fuzz role", permissions: [{ application: "inventory", resource_type: "hosts", operation: "read" }] } });
  const group = await app.request("POST", `${V1}/groups/`, { as, body: { name: "fuzz group" } });
  known = { workspace: ws.body.id, role: role.body.id, group: group.body.uuid };
});
afterAll(async () => {
  await app.stop();
  await store.close();
});

const HOSTILE_STRINGS = [
  "",
  " ",
  "a",
  "..",
  "%",
  "%00",
  "%ZZ",
  "%C0%AF",
  "%ED%A0%80",
  "%ED%B0%80",
  "%F0%9F%98",
  "%F0%9F%98%80",
  "%E0%A4%A",
  "null",
  "undefined",
  "-1",
  "0",
  "1e309",
  "NaN",
  "true",
  "[]",
  "{}",
  "'; DROP TABLE x; --",
  "<script>",
  "\\",
  "%2F",
  "%5C",
  "ü",
  "%u0000",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "x".repeat(300),
  "9".repeat(40),
  "a%20b",
  "%0d%0aSet-Cookie:%20x",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
const QUERY_KEYS = [
  "limit",
  "offset",
  "type",
  "name",
  "parent_id",
  "order_by",
  "cursor",
  "ids",
  "resource_id",
  "resource_type",
  "subject_type",
  "subject_id",
  "role_id",
  "fields",
  "with_ancestry",
  "exclude_sources",
  "usernames",
  "principal_type",
];
const CONTENT_TYPES = [
  "application/json",
  "application/merge-patch+json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "",
];
const ENCODINGS = ["", "", "", "gzip", "br", "deflate", "identity", "x-bogus"];

function encodeSegment(value: string): string {
  // Already percent-encoded hostile strings pass as they are; others are encoded byte-wise.
  return /^[A-Za-z0-9._~%:-]*$/.test(value) ? value : encodeURIComponent(value);
}

function randomJson(g: ReturnType<typeof generator>, depth = 0): unknown {
  const kind = g.int(depth > 3 ? 5 : 8);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return g.next() < 0.5;
    case 2:
      return g.pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31]);
    case 3:
      return decodeURIComponentSafe(g.pick(HOSTILE_STRINGS));
    case 4:
      return g.pick(["\u0000", "\ud800", "x\udfffy", "\udc00\ud800", "end\ud83d", "😀", "a".repeat(5000)]);
    case 5:
      return Array.from({ length: g.int(4) }, () => randomJson(g, depth + 1));
    default: {
      const keys = ["name", "description", "parent_id", "permissions", "requests", "resource", "subject", "role", "id", "type", "principals", "ids", "__proto__", "constructor"];
      return Object.fromEntries(Array.from({ length: g.int(5) }, () => [g.pick(keys), randomJson(g, depth + 1)]));
    }
  }
}

/** Whether any text of the request cannot be taken as sent (bad percent-encoding, invalid UTF-8, unpaired surrogates). */
function carriesMalformedText(req: Generated): boolean {
  const components = req.path.replace("?", "&").split(/[/&=]/);
  if (components.some((c) => decodeURIComponentSafe(c) === c && /%/.test(c))) return true;
  // Only the methods whose body is read (an OPTIONS or DELETE body is ignored, not taken).
  if (req.body === undefined || !["POST", "PUT", "PATCH"].includes(req.method)) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body);
  } catch {
    return false;
  }
  const unpaired = (text: string) => /\p{Surrogate}/u.test(text);
  const malformed = (value: unknown): boolean =>
    typeof value === "string" ? unpaired(value) : typeof value === "object" && value !== null ? Object.entries(value).some(([k, v]) => unpaired(k) || malformed(v)) : false;
  return malformed(parsed);
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

interface Generated {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function generate(g: ReturnType<typeof generator>): Generated {
  // Now and then a request that is valid but for one unpaired surrogate: only that can refuse it.
  if (g.int(25) === 0) {
    const body = JSON.stringify({ name: `fuzz ws ${g.int(1e9)}`, description: g.pick(["\ud800", "a\udfffb", "\udc00\ud83d", "end\ud83d"]) });
    return { method: "POST", path: `${V2}/workspaces/`, headers: { "x-rh-identity": identity, "content-type": "application/json" }, body };
  }
  const id = () => (g.next() < 0.3 ? g.pick([known.workspace, known.role, known.group]) : encodeSegment(g.pick(HOSTILE_STRINGS)));
  const paths = [
    () => `${V2}/workspaces/`,
    () => `${V2}/workspaces/${id()}/`,
    () => `${V2}/workspaces/${id()}/move/`,
    () => `${V2}/workspaces/query/`,
    () => `${V2}/roles/`,
    () => `${V2}/roles/${id()}/`,
    () => `${V2}/roles:batchDelete/`,
    () => `${V2}/role-bindings/`,
    () => `${V2}/role-bindings:batchCreate/`,
    () => `${V2}/role-bindings/by-subject/`,
    () => `${V2}/principals/`,
    () => `${V2}/principals/${id()}/`,
    () => `${V2}/${id()}`,
    () => `${V1}/groups/`,
    () => `${V1}/groups/${id()}/`,
    () => `${V1}/groups/${id()}/principals/`,
    () => `${V1}/principals/${id()}/`,
    () => `/${id()}`,
  ];
  let path = g.pick(paths)();
  const params = Array.from({ length: g.int(4) }, () => `${g.pick(QUERY_KEYS)}=${encodeSegment(g.pick(HOSTILE_STRINGS))}`);
  if (params.length > 0) path += `?${params.join("&")}`;
  const method = g.pick(METHODS);
  const headers: Record<string, string> = {};
  const auth = g.int(10);
  if (auth < 7) headers["x-rh-identity"] = identity;
  else if (auth === 7) headers["x-rh-identity"] = g.pick(["", "not base64!", Buffer.from("{").toString("base64"), Buffer.from(JSON.stringify({ identity: {} })).toString("base64")]);
  else if (auth === 8) headers["authorization"] = g.pick(["Bearer", "Bearer x.y.z", "Basic abc"]);
  let body: string | undefined;
  if (method !== "GET" && method !== "HEAD" && g.next() < 0.8) {
    body = g.next() < 0.85 ? JSON.stringify(randomJson(g)) : g.pick(["{", "[1,", "\u0000", '{"name": "\\ud800"}', "x".repeat(2000)]);
    const type = g.pick(CONTENT_TYPES);
    if (type) headers["content-type"] = type;
    const encoding = g.pick(ENCODINGS);
    if (encoding) headers["content-encoding"] = encoding;
  }
  if (g.int(20) === 0) headers["host"] = "evil.example";
  return { method, path, headers, ...(body !== undefined ? { body } : {}) };
}

function send(req: Generated): Promise<{ status: number; contentType: string; text: string }> {
  const url = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    // A connection per request: a server may close one after an error, which says nothing about the next.
    const r = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, setHost: !("host" in req.headers), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8") }));
    });
    r.on("error", reject);
    r.end(req.body);
  });
}

describe("HTTP fuzz", () => {
  it(
    `answers ${COUNT} generated requests without a 5xx, with problem+json errors, changing nothing when refused`,
    async () => {
      const g = generator(SEED);
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      for (let i = 0; i < COUNT && failures.length < 5; i++) {
        const req = generate(g);
        const writes = req.method !== "GET" && req.method !== "HEAD" && req.method !== "OPTIONS";
        const before = writes ? await store.feed.headRevision() : 0;
        const res = await send(req).catch((error: Error) => ({ status: 599, contentType: "", text: `transport: ${error.message}` }));
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const label = `#${i} ${req.method} ${req.path.slice(0, 120)} ${JSON.stringify(req.headers).slice(0, 200)} → ${res.status}`;
        if (res.status >= 500) failures.push(`${label} ${res.text.slice(0, 200)}`);
        if (res.status >= 400 && req.path.startsWith(`${V2}/`) && res.text !== "" && !/^application\/problem\+json/.test(res.contentType) && res.status !== 409 && !/"code":400/.test(res.text)) {
          failures.push(`${label} not problem+json: ${res.contentType}`);
        }
        if (writes && res.status >= 400 && (await store.feed.headRevision()) !== before) failures.push(`${label} changed the store`);
        // Refused, never taken with U+FFFD in place of what was sent.
        if (res.status < 400 && carriesMalformedText(req)) failures.push(`${label} accepted malformed text`);
      }
      expect(failures).toEqual([]);
      // Still answering normally.
      expect((await app.request("GET", `${V2}/workspaces/?type=default`, { as: { org: "fuzz-org", user: "fuzz-admin", admin: true } })).status).toBe(200);
      if (process.env["FUZZ_COUNT"]) console.log("HTTP fuzz statuses", Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
    },
    Math.max(600_000, COUNT * 100),
  );
});
