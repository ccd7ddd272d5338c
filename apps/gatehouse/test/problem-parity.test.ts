// The management API and workspace-cache answer the same refusal with the same status, headers and
// problem+json body (both write it through @gatehouse/problem).
import { createServer } from "node:net";
import { parseSystemUsers } from "@gatehouse/auth";
import { buildServer as buildManagementApi } from "@gatehouse/management-api";
import { openStore, type Store } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { buildServer as buildWorkspaceCache } from "@gatehouse/workspace-cache";
import { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PATH = "/api/rbac/v2/workspaces/?type=root";
const SYSTEM_USERS = JSON.stringify({ "svc-any": { admin: true, allow_any_org: true }, "svc-fixed": { admin: true } });

/** A port nothing listens on, for an issuer that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Pair {
  management: string;
  cache: string;
  stop(): Promise<void>;
}

async function startPair(store: Store, issuerUrl: string): Promise<Pair> {
  const oidc = { issuerUrl, audience: "gatehouse", insecure: true };
  const management = buildManagementApi(
    { port: 0, host: "127.0.0.1", oidc, trustIdentityHeader: false, systemUsers: parseSystemUsers(SYSTEM_USERS) },
    { store, logger: createSilentLogger(), consoleDir: null },
  );
  const cache = buildWorkspaceCache({
    port: 0,
    host: "127.0.0.1",
    source: { directory: { builtInWorkspaces: async () => null } },
    cache: { kind: "memory" },
    auth: { mode: "oidc", ...oidc, systemUsers: parseSystemUsers(SYSTEM_USERS) },
    logLevel: "silent",
  });
  const [m, c] = [await management.start(), await cache.start()];
  return {
    management: `http://127.0.0.1:${m.port}`,
    cache: `http://127.0.0.1:${c.port}`,
    stop: async () => {
      await management.stop();
      await cache.stop();
    },
  };
}

async function answer(base: string, headers: Record<string, string>) {
  const res = await fetch(`${base}${PATH}`, { headers });
  return { status: res.status, contentType: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after"), body: await res.json() };
}

let issuer: OAuth2Server;
let store: Store;
let live: Pair;
let down: Pair;
const token = (sub: string, orgId?: string, aud = "gatehouse") =>
  issuer.issuer.buildToken({
    scopesOrTransform: (_header, payload) => {
      Object.assign(payload, { sub, azp: sub, aud, ...(orgId ? { organization: { id: orgId } } : {}) });
    },
  });

beforeAll(async () => {
  issuer = new OAuth2Server();
  await issuer.issuer.keys.generate("RS256");
  await issuer.start(0, "127.0.0.1");
  store = await openStore({});
  live = await startPair(store, issuer.issuer.url as string);
  down = await startPair(store, `http://127.0.0.1:${await closedPort()}/realm`);
});
afterAll(async () => {
  await live?.stop();
  await down?.stop();
  await store?.close();
  await issuer?.stop();
});

describe("the same refusal from the management API and workspace-cache", () => {
  const cases: [string, () => Promise<Record<string, string>>, number, () => Pair][] = [
    ["a token that is not a JWT", async () => ({ authorization: "Bearer not-a-jwt", "x-rh-rbac-org-id": "o1" }), 401, () => live],
    ["a token for another audience", async () => ({ authorization: `Bearer ${await token("svc-any", undefined, "someone-else")}`, "x-rh-rbac-org-id": "o1" }), 401, () => live],
    ["a subject that is not a system user", async () => ({ authorization: `Bearer ${await token("stranger")}`, "x-rh-rbac-org-id": "o1" }), 403, () => live],
    ["another organisation than the token's", async () => ({ authorization: `Bearer ${await token("svc-fixed", "o9")}`, "x-rh-rbac-org-id": "o1" }), 403, () => live],
    ["an issuer that is down", async () => ({ authorization: `Bearer ${await token("svc-any")}`, "x-rh-rbac-org-id": "o1" }), 503, () => down],
  ];

  it.each(cases)("%s", async (_name, headers, status, pair) => {
    const sent = await headers();
    const [fromManagement, fromCache] = [await answer(pair().management, sent), await answer(pair().cache, sent)];
    expect(fromManagement.status).toBe(status);
    expect(fromManagement.contentType).toBe("application/problem+json; charset=utf-8");
    expect(fromManagement.body).toMatchObject({ status, errors: [{ field: "detail" }] });
    expect(fromCache).toEqual(fromManagement);
  });
});
