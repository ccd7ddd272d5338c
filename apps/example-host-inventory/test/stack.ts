// The whole stack in-process: a real OIDC issuer, the store (embedded PGlite), the authz engine,
// workspace-cache on a throwaway Redis behind a recording proxy, and the example application.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Server } from "oauth2-mock-server";
import { parseSystemUsers } from "@gatehouse/auth";
import { buildServer as buildEngine } from "@gatehouse/authz-engine";
import { type ThrowawayRedis, startThrowawayRedis } from "@gatehouse/cache/testing";
import { type AuthzClient, type AuthzClientConfig, type AuthzClientDeps, createAuthzClient } from "@gatehouse/client";
import { type Store, openStore } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { buildServer as buildWorkspaceCache, workspaceDirectoryFromStore } from "@gatehouse/workspace-cache";
import { schemaText } from "./schema.js";

export const AUDIENCE = "gatehouse";

export interface Issuer {
  url: string;
  tokenRequests(): number;
  setExpiresIn(seconds: number): void;
  stop(): Promise<void>;
}

/** Client credentials are checked; each client's tokens carry its configured audience. */
export async function startIssuer(clients: Record<string, { secret: string; audience: string }>): Promise<Issuer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  let requests = 0;
  let expiresIn = 3600;
  server.service.on("beforeTokenSigning", (token, req) => {
    const clientId = String(req.body.client_id ?? "");
    Object.assign(token.payload, { sub: clientId, azp: clientId, aud: clients[clientId]?.audience, jti: randomUUID() });
    token.payload.exp = token.payload.iat + expiresIn;
  });
  server.service.on("beforeResponse", (response, req) => {
    requests++;
    const body = req.body as unknown as Record<string, string>;
    if (clients[body["client_id"] ?? ""]?.secret !== body["client_secret"]) {
      response.statusCode = 401;
      response.body = { error: "invalid_client" };
    } else if (typeof response.body === "object") {
      response.body["expires_in"] = expiresIn;
    }
  });
  return { url: server.issuer.url as string, tokenRequests: () => requests, setExpiresIn: (s) => void (expiresIn = s), stop: () => server.stop() };
}

/** Forwards HTTP to `target` and records the request headers: proof of what the SDK sends. */
export async function startRecordingProxy(target: string) {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    const upstream = http.request(`${target}${req.url ?? ""}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

export interface Stack {
  store: Store;
  issuer: Issuer;
  redis: ThrowawayRedis;
  enginePort: number;
  lookupProxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  /** An SDK configured as an application would be, for the given service account. */
  client(clientId?: string, secret?: string, deps?: AuthzClientDeps): AuthzClient;
  clientConfig(clientId?: string, secret?: string): AuthzClientConfig;
  close(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  const issuer = await startIssuer({
    "host-inventory": { secret: "inventory-secret", audience: AUDIENCE },
    "wrong-audience": { secret: "other-secret", audience: "some-other-api" },
  });
  const store = await openStore({ pollIntervalMs: 50 });
  const engine = buildEngine({
    host: "127.0.0.1",
    port: 0,
    metricsPort: 0,
    schemaText,
    store,
    logger: createSilentLogger(),
    authn: { mode: "oidc", serverUrl: issuer.url, audience: AUDIENCE, skipClientIdCheck: true, insecureClient: true },
    shutdownTimeoutMs: 1_000,
  });
  const { port: enginePort } = await engine.start();
  const redis = await startThrowawayRedis();
  const workspaceCache = buildWorkspaceCache({
    port: 0,
    host: "127.0.0.1",
    source: { directory: workspaceDirectoryFromStore(store) },
    // Bounds that only guard a hang: a stopped Redis refuses at once, and a slow machine must not
    // turn a late answer into a failure.
    cache: { kind: "redis", url: redis.url, commandTimeoutMs: 600_000 },
    auth: {
      mode: "oidc",
      issuerUrl: issuer.url,
      audience: AUDIENCE,
      insecure: true,
      systemUsers: parseSystemUsers(JSON.stringify({ "host-inventory": { is_service_account: true, allow_any_org: true } })),
    },
  });
  const { port: lookupPort } = await workspaceCache.start();
  const lookupProxy = await startRecordingProxy(`http://127.0.0.1:${lookupPort}`);
  const clientConfig = (clientId = "host-inventory", secret = "inventory-secret"): AuthzClientConfig => ({
    enabled: true,
    url: `127.0.0.1:${enginePort}`,
    workspaceUrl: lookupProxy.url,
    insecure: true,
    auth: { enabled: true, clientId, clientSecret: secret, oidcIssuer: issuer.url },
    timeoutMs: 600_000,
  });
  return {
    store,
    issuer,
    redis,
    enginePort,
    lookupProxy,
    clientConfig,
    client: (clientId, secret, deps) => createAuthzClient(clientConfig(clientId, secret), deps),
    async close() {
      await lookupProxy.close();
      await workspaceCache.stop();
      await engine.stop();
      await redis.stop();
      await store.close();
      await issuer.stop();
    },
  };
}
