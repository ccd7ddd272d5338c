// EngineServer.httpApi: the HTTP/JSON interface as a listener another server mounts (the all-in-one's
// management API port). Mounted on a plain node:http server here, it answers exactly as the engine's
// own HTTP port once started, with the caller's headers reaching the engine's authenticator; before
// the start and after the stop it answers 503 in inventory-api's error shape.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { openStore, type Store, type Tenant } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildServer, KESSEL_HTTP_PREFIX, type EngineServer } from "../src/index.js";
import { readGrant, stageSchema } from "./helpers.js";

const ORG = "mount-org";
let store: Store;
let tenant: Tenant;
let engine: EngineServer;
let enginePort: number;
let host: Server;

const hostPort = () => (host.address() as AddressInfo).port;

async function post(port: number, user: string | null, body: unknown): Promise<{ status: number; text: string; retryAfter: string | null }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (user) headers["x-rh-identity"] = encodeIdentityHeader({ orgId: ORG, userId: user, username: user });
  const response = await fetch(`http://127.0.0.1:${port}${KESSEL_HTTP_PREFIX}v1beta2/checkself`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text(), retryAfter: response.headers.get("retry-after") };
}
const check = () => ({ object: { resourceId: tenant.defaultWorkspaceId, resourceType: "workspace", reporter: { type: "rbac" } }, relation: "view" });

beforeAll(async () => {
  store = await openStore({ pollIntervalMs: 50 });
  tenant = (await store.tenants.bootstrap(ORG)).value;
  await store.relationships.write(ORG, { touch: readGrant(tenant.defaultWorkspaceId, "alice") });
  engine = buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, schemaText: stageSchema, store, logger: createSilentLogger(), shutdownTimeoutMs: 2000 });
  host = createServer((request, response) => engine.httpApi(request, response));
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => host?.close(() => resolve()));
  await engine?.stop();
  await store?.close();
});

it("answers 503 before the start, the engine port's answers once started, 503 again after the stop", async () => {
  const early = await post(hostPort(), "alice", check());
  expect(early.status).toBe(503);
  expect(JSON.parse(early.text)).toEqual({ code: 503, reason: "", message: expect.stringMatching(/not serving/), metadata: {} });
  expect(early.retryAfter).toBe("1");

  enginePort = (await engine.start()).metricsPort;
  for (const [user, allowed] of [
    ["alice", "ALLOWED_TRUE"],
    ["dave", "ALLOWED_FALSE"],
  ] as const) {
    // A fresh grant may not be applied yet: ask with at_least_as_fresh of the store's head.
    const fresh = { ...check(), consistency: { atLeastAsFresh: { token: store.tokens.encode(await store.feed.headRevision()) } } };
    const mounted = await post(hostPort(), user, fresh);
    const own = await post(enginePort, user, fresh);
    expect(mounted.status).toBe(200);
    expect(JSON.parse(mounted.text).allowed).toBe(allowed);
    expect(mounted.text).toBe(own.text);
  }
  // No identity: the engine's authenticator refuses, as on its own port.
  const anonymous = await post(hostPort(), null, check());
  expect(anonymous).toEqual(await post(enginePort, null, check()));
  expect(anonymous.status).toBe(401);

  await engine.stop();
  const late = await post(hostPort(), "alice", check());
  expect(late.status).toBe(503);
});
