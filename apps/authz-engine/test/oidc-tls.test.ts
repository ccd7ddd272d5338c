// End to end: bearer-token authentication against a real OIDC issuer (discovery, JWKS, client
// credentials) and TLS on the gRPC port, through grpc-js clients and the official Kessel SDK.
// The certificates come from test/tls-setup.ts (generated for this run, CA trusted by the workers).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ChannelCredentials, credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { Allowed, HealthCheckResponse_ServingStatus, HealthClient, KesselInventoryServiceClient } from "@gatehouse/proto";
import { openStore, type Store } from "@gatehouse/store";
import { fetchOIDCDiscovery, OAuth2ClientCredentials } from "@project-kessel/kessel-sdk/kessel/auth";
import { ClientBuilder as HealthClientBuilder } from "@project-kessel/kessel-sdk/kessel/inventory/v1";
import { ClientBuilder } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2";
import { KesselInventoryServiceClient as SdkInventoryClient } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/inventory_service";
import type { CheckRequest as SdkCheckRequest } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/check_request";
import { oauth2CallCredentials } from "@project-kessel/kessel-sdk/kessel/grpc";
import { principalSubject, workspaceResource } from "@project-kessel/kessel-sdk/kessel/rbac/v2";
import { OAuth2Server, type JwtTransform } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { buildServer, type AuthnConfig } from "../src/index.js";
import { call, listAll, principal, readGrant, rejection, startEngine, workspace, type RunningEngine } from "./helpers.js";

const tlsDir = inject("tlsDir");
const pem = (name: string) => readFileSync(join(tlsDir, name));
const ca = pem("ca.pem");
// TLS clients dial localhost (the certificate names localhost and 127.0.0.1; SNI takes host names only).
const serverTls = { cert: pem("server.pem"), key: pem("server-key.pem") };

/** The engine's client id (`aud` of the tokens issued for it). */
const ENGINE_CLIENT_ID = "gatehouse-engine";
/** A service account of the identity provider: client id, secret, and the subject its tokens carry. */
const APP = { clientId: "inventory-app", secret: "app-secret", sub: "7001" };
const ORG = "oidc-org";
const WS = "ws-oidc";

interface Issuer {
  server: OAuth2Server;
  url: string;
  /** A token signed by this issuer: by default for the engine, from APP, valid for an hour. */
  token(options?: { claims?: Record<string, unknown>; expiresIn?: number }): Promise<string>;
}

/** Tokens from the client-credentials grant name the client (azp, client_id) and are meant for the engine. */
async function startIssuer(options: { https?: boolean; kid?: string } = {}): Promise<Issuer> {
  const server = options.https ? new OAuth2Server(join(tlsDir, "server-key.pem"), join(tlsDir, "server.pem")) : new OAuth2Server();
  await server.issuer.keys.generate("RS256", options.kid ? { kid: options.kid } : {});
  server.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }, req: { body: Record<string, unknown> }) => {
    const clientId = String(req.body["client_id"] ?? "");
    Object.assign(token.payload, { sub: clientId === APP.clientId ? APP.sub : clientId, azp: clientId, client_id: clientId, aud: ENGINE_CLIENT_ID });
  });
  server.service.on("beforeResponse", (response: { statusCode: number; body: unknown }, req: { body: Record<string, unknown> }) => {
    if (req.body["grant_type"] === "client_credentials" && (req.body["client_id"] !== APP.clientId || req.body["client_secret"] !== APP.secret)) {
      response.statusCode = 401;
      response.body = { error: "invalid_client" };
    }
  });
  await server.start(0, "127.0.0.1");
  const url = server.issuer.url as string;
  return {
    server,
    url,
    token({ claims = {}, expiresIn = 3600 } = {}) {
      const transform: JwtTransform = (_header, payload) => Object.assign(payload, { sub: APP.sub, azp: APP.clientId, client_id: APP.clientId, aud: ENGINE_CLIENT_ID }, claims);
      return server.issuer.buildToken({ scopesOrTransform: transform, expiresIn });
    },
  };
}

const bearer = (token: string) => {
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
};

const checkRequest = (userId = APP.sub) => ({ object: workspace(WS), relation: "view", subject: { resource: principal(userId) } });

function healthCheck(client: HealthClient): Promise<HealthCheckResponse_ServingStatus> {
  return new Promise((resolve, reject) => client.check({ service: "" }, new Metadata(), {}, (error, response) => (error ? reject(error) : resolve(response!.status))));
}

let store: Store;
let issuer: Issuer;
let httpsIssuer: Issuer;
/** OIDC with a client id, plaintext gRPC (h2c), http issuer (insecureClient). */
let oidc: RunningEngine;
/** OIDC without the client-id check. */
let skipClientId: RunningEngine;
/** OIDC with an https issuer, TLS on the gRPC port. */
let tls: RunningEngine;
let tlsClient: KesselInventoryServiceClient;
const opened: Array<{ close(): void }> = [];

const oidcAuthn = (serverUrl: string, extra: Partial<Extract<AuthnConfig, { mode: "oidc" }>> = {}): AuthnConfig => ({ mode: "oidc", serverUrl, ...extra });

beforeAll(async () => {
  store = await openStore({ pollIntervalMs: 50 });
  await store.tenants.bootstrap(ORG);
  await store.relationships.write(ORG, { touch: readGrant(WS, APP.sub) });
  [issuer, httpsIssuer] = await Promise.all([startIssuer(), startIssuer({ https: true })]);
  [oidc, skipClientId, tls] = await Promise.all([
    startEngine({ authn: oidcAuthn(issuer.url, { clientId: ENGINE_CLIENT_ID, insecureClient: true }) }, store),
    startEngine({ authn: oidcAuthn(issuer.url, { skipClientIdCheck: true, insecureClient: true }) }, store),
    startEngine({ authn: oidcAuthn(httpsIssuer.url, { clientId: ENGINE_CLIENT_ID }), tls: serverTls }, store),
  ]);
  tlsClient = new KesselInventoryServiceClient(`localhost:${tls.port}`, credentials.createSsl(ca));
  opened.push(tlsClient);
});

afterAll(async () => {
  for (const client of opened) client.close();
  await Promise.all([oidc?.close(), skipClientId?.close(), tls?.close()]);
  await Promise.all([issuer?.server.stop(), httpsIssuer?.server.stop()]);
  await store?.close();
});

describe("OIDC bearer tokens", () => {
  it("admits a token the issuer signed for the engine's client id", async () => {
    const answer = await call(oidc.client, "check", checkRequest(), bearer(await issuer.token()));
    expect(answer.allowed).toBe(Allowed.ALLOWED_TRUE);
    // The token authenticates the caller; the subject of Check is still the one in the request.
    const other = await call(oidc.client, "check", checkRequest("someone-else"), bearer(await issuer.token()));
    expect(other.allowed).toBe(Allowed.ALLOWED_FALSE);
  });

  it("is UNAUTHENTICATED without a token, for unary and streaming calls", async () => {
    expect((await rejection(call(oidc.client, "check", checkRequest()))).code).toBe(status.UNAUTHENTICATED);
    const stream = listAll(oidc.client, { objectType: { resourceType: "workspace", reporterType: "rbac" }, relation: "view", subject: { resource: principal(APP.sub) } });
    expect((await rejection(stream)).code).toBe(status.UNAUTHENTICATED);
  });

  it("is UNAUTHENTICATED for authorization metadata that is not a valid bearer JWT", async () => {
    for (const header of ["Basic aW52ZW50b3J5OnNlY3JldA==", "Bearer not-a-jwt", "Bearer "]) {
      const metadata = new Metadata();
      metadata.set("authorization", header);
      expect((await rejection(call(oidc.client, "check", checkRequest(), metadata))).code, header).toBe(status.UNAUTHENTICATED);
    }
  });

  it("is UNAUTHENTICATED for a token from another issuer, or signed with a key the issuer does not publish", async () => {
    const other = await startIssuer();
    // Same issuer URL and key id, different private key: only the signature gives it away.
    const kid = issuer.server.issuer.keys.toJSON()[0]!.kid;
    const forger = await startIssuer({ kid });
    forger.server.issuer.url = issuer.url;
    try {
      for (const token of [await other.token(), await forger.token()]) {
        const error = await rejection(call(oidc.client, "check", checkRequest(), bearer(token)));
        expect(error.code).toBe(status.UNAUTHENTICATED);
      }
    } finally {
      await Promise.all([other.server.stop(), forger.server.stop()]);
    }
  });

  it("is UNAUTHENTICATED (an authenticator denial, contract §5.4) for a token issued to another client, unless the check is skipped", async () => {
    const foreign = await issuer.token({ claims: { aud: "another-service", azp: "another-app", client_id: "another-app" } });
    const error = await rejection(call(oidc.client, "check", checkRequest(), bearer(foreign)));
    expect(error.code).toBe(status.UNAUTHENTICATED);
    expect(error.details).toMatch(/not issued to this client/);
    const answer = await call(skipClientId.client, "check", checkRequest(), bearer(foreign));
    expect(answer.allowed).toBe(Allowed.ALLOWED_TRUE);
    // The client id may also be the authorized party rather than the audience.
    const asAzp = await issuer.token({ claims: { aud: "account", azp: ENGINE_CLIENT_ID, client_id: ENGINE_CLIENT_ID } });
    expect((await call(oidc.client, "check", checkRequest(), bearer(asAzp))).allowed).toBe(Allowed.ALLOWED_TRUE);
  });

  it("is UNAUTHENTICATED for an expired token", async () => {
    // Past the verifier's 30 s clock tolerance.
    const expired = await issuer.token({ expiresIn: -120 });
    const error = await rejection(call(oidc.client, "check", checkRequest(), bearer(expired)));
    expect(error.code).toBe(status.UNAUTHENTICATED);
    expect(error.details).toMatch(/ERR_JWT_EXPIRED/);
  });

  it("uses the token's subject as the principal of CheckSelf", async () => {
    const self = await call(oidc.client, "checkSelf", { object: workspace(WS), relation: "view" }, bearer(await issuer.token()));
    expect(self.allowed).toBe(Allowed.ALLOWED_TRUE);
    const stranger = await call(oidc.client, "checkSelf", { object: workspace(WS), relation: "view" }, bearer(await issuer.token({ claims: { sub: "7002" } })));
    expect(stranger.allowed).toBe(Allowed.ALLOWED_FALSE);
    // An x-rh-identity header does not name "self" when bearer tokens are configured.
    const header = new Metadata();
    header.set("x-rh-identity", encodeIdentityHeader({ orgId: ORG, userId: APP.sub, username: "app" }));
    expect((await rejection(call(oidc.client, "checkSelf", { object: workspace(WS), relation: "view" }, header))).code).toBe(status.UNAUTHENTICATED);
  });

  it("answers health probes without credentials (grpc.health.v1 and the Kessel health service)", async () => {
    const health = new HealthClient(`127.0.0.1:${oidc.port}`, credentials.createInsecure());
    opened.push(health);
    expect(await healthCheck(health)).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const kessel = new HealthClientBuilder(`127.0.0.1:${oidc.port}`).insecure().buildAsync();
    expect(await kessel.getLivez({})).toMatchObject({ status: "OK", code: 200 });
    expect(await kessel.getReadyz({})).toMatchObject({ status: "OK", code: 200 });
  });

  it("is UNAVAILABLE (retryable) while the issuer cannot be reached, and refuses an http issuer unless insecureClient", async () => {
    const gone = await startIssuer();
    const url = gone.url;
    const token = await gone.token();
    await gone.server.stop();
    const engine = await startEngine({ authn: oidcAuthn(url, { clientId: ENGINE_CLIENT_ID, insecureClient: true }) }, store);
    try {
      expect((await rejection(call(engine.client, "check", checkRequest(), bearer(token)))).code).toBe(status.UNAVAILABLE);
    } finally {
      await engine.close();
    }
    expect(() => buildServer({ store, authn: oidcAuthn(issuer.url, { clientId: ENGINE_CLIENT_ID }) })).toThrow(/https/);
  });
});

describe("TLS", () => {
  it("serves TLS with the configured certificate", async () => {
    const answer = await call(tlsClient, "check", checkRequest(), bearer(await httpsIssuer.token()));
    expect(answer.allowed).toBe(Allowed.ALLOWED_TRUE);
    const health = new HealthClient(`localhost:${tls.port}`, credentials.createSsl(ca));
    opened.push(health);
    expect(await healthCheck(health)).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const kessel = new HealthClientBuilder(`localhost:${tls.port}`).unauthenticated(credentials.createSsl(ca)).buildAsync();
    expect(await kessel.getReadyz({})).toMatchObject({ status: "OK", code: 200 });
  });

  const mismatches: Array<[string, () => number, () => ChannelCredentials, RegExp]> = [
    ["a plaintext client on the TLS port", () => tls.port, () => credentials.createInsecure(), /./],
    ["a client trusting another CA on the TLS port", () => tls.port, () => credentials.createSsl(pem("other-ca.pem")), /unable to verify|self[- ]signed certificate in certificate chain/],
    ["a TLS client on the plaintext (h2c) port", () => oidc.port, () => credentials.createSsl(ca), /wrong version number/],
  ];
  it.each(mismatches)("fails for %s (UNAVAILABLE)", async (_name, port, channel, cause) => {
    const health = new HealthClient(`localhost:${port()}`, channel());
    opened.push(health);
    const error = await rejection(healthCheck(health));
    expect(error.code).toBe(status.UNAVAILABLE);
    expect(error.details).toMatch(cause);
  });
});

describe("OIDC over TLS with the Kessel SDK", () => {
  it("gets a client-credentials token from the https issuer and checks over TLS", async () => {
    const { tokenEndpoint } = await fetchOIDCDiscovery(httpsIssuer.url);
    const auth = new OAuth2ClientCredentials({ clientId: APP.clientId, clientSecret: APP.secret, tokenEndpoint });
    const client = new ClientBuilder(`localhost:${tls.port}`).oauth2ClientAuthenticated(auth, credentials.createSsl(ca)).buildAsync();
    const allowed = await client.check({ object: workspaceResource(WS), relation: "view", subject: principalSubject(APP.sub, "redhat") });
    expect(allowed.allowed).toBe(Allowed.ALLOWED_TRUE);
    const denied = await client.checkForUpdate({ object: workspaceResource(WS), relation: "view", subject: principalSubject("7002", "redhat") });
    expect(denied.allowed).toBe(Allowed.ALLOWED_FALSE);

    // The same token names "self" (CheckSelf is not in SDK 3.3.1: a grpc-js call with it).
    const { accessToken } = await auth.getToken();
    const self = await call(tlsClient, "checkSelf", { object: workspace(WS), relation: "view" }, bearer(accessToken));
    expect(self.allowed).toBe(Allowed.ALLOWED_TRUE);

    // The SDK refuses call credentials on a plaintext channel, so a token never travels unencrypted.
    expect(() => new ClientBuilder(`127.0.0.1:${oidc.port}`).oauth2ClientAuthenticated(auth, credentials.createInsecure())).toThrow(/insecure channel/);
  });

  it("kessel-sdk-node examples builder/auth.ts and vanilla/auth.ts: their check, unchanged", async () => {
    const exampleCheck: SdkCheckRequest = {
      object: { reporter: { type: "rbac" }, resourceId: "1234", resourceType: "workspace" },
      relation: "inventory_host_view",
      subject: { resource: { reporter: { type: "rbac" }, resourceId: "foobar", resourceType: "principal" } },
    };
    const discovery = await fetchOIDCDiscovery(httpsIssuer.url);
    const auth = new OAuth2ClientCredentials({ clientId: APP.clientId, clientSecret: APP.secret, tokenEndpoint: discovery.tokenEndpoint });
    // builder/auth.ts: default channel credentials (system roots; the test CA is trusted by the workers).
    const client = new ClientBuilder(`localhost:${tls.port}`).oauth2ClientAuthenticated(auth).buildAsync();
    expect((await client.check(exampleCheck)).allowed).toBe(Allowed.ALLOWED_FALSE);
    // vanilla/auth.ts: the generated stub with SSL channel credentials combined with the SDK's call credentials.
    const stub = new SdkInventoryClient(`localhost:${tls.port}`, credentials.combineChannelCredentials(ChannelCredentials.createSsl(), oauth2CallCredentials(auth)));
    const response = await new Promise<{ allowed: number }>((resolve, reject) => stub.check(exampleCheck, (error, res) => (error ? reject(error) : resolve(res))));
    stub.close();
    expect(response.allowed).toBe(Allowed.ALLOWED_FALSE);
  });

  it("rejects the SDK's calls when its token is not for the engine", async () => {
    const { tokenEndpoint } = await fetchOIDCDiscovery(httpsIssuer.url);
    // Tokens of this client are issued for another audience.
    httpsIssuer.server.service.once("beforeTokenSigning", (token: { payload: Record<string, unknown> }) => {
      token.payload["aud"] = "another-service";
    });
    const auth = new OAuth2ClientCredentials({ clientId: APP.clientId, clientSecret: APP.secret, tokenEndpoint });
    const client = new ClientBuilder(`localhost:${tls.port}`).oauth2ClientAuthenticated(auth, credentials.createSsl(ca)).buildAsync();
    const error = await rejection(client.check({ object: workspaceResource(WS), relation: "view", subject: principalSubject(APP.sub, "redhat") }));
    expect((error as ServiceError).code).toBe(status.UNAUTHENTICATED);
  });
});
