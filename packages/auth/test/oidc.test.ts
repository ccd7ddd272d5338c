import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createOidcVerifier } from "../src/index.js";

let server: Server;
let issuer: string;
let privateKey: CryptoKey;
let otherKey: CryptoKey;
let discoveryHits = 0;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair("RS256")).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/realm/.well-known/openid-configuration") {
      discoveryHits += 1;
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/certs` }));
    } else if (req.url === "/realm/certs") {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realm`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function sign(claims: Record<string, unknown>, options: { key?: CryptoKey; iss?: string; exp?: string; iat?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(options.iss ?? issuer)
    .setIssuedAt(options.iat ?? "0s")
    .setExpirationTime(options.exp ?? "5m")
    .sign(options.key ?? privateKey);
}

describe("createOidcVerifier", () => {
  it("verifies a token signed by the issuer's key and reads the Red Hat claims", async () => {
    const verifier = createOidcVerifier({ issuerUrl: issuer, insecure: true, audience: "api" });
    const token = await sign({ sub: "s1", aud: "api", azp: "c1", preferred_username: "bot", organization: { id: "42" }, roles: ["org:admin:all"] });
    const verified = await verifier.verify(token);
    expect(verified).toMatchObject({ sub: "s1", clientId: "c1", username: "bot", orgId: "42", isOrgAdmin: true });
  });

  it("caches discovery across verifications", async () => {
    const verifier = createOidcVerifier({ issuerUrl: issuer, insecure: true });
    const before = discoveryHits;
    await verifier.verify(await sign({ sub: "a" }));
    await verifier.verify(await sign({ sub: "b" }));
    expect(discoveryHits - before).toBe(1);
  });

  it.each([
    ["a foreign key", async () => sign({ sub: "s" }, { key: otherKey })],
    ["an expired token", async () => sign({ sub: "s" }, { exp: "-5m" })],
    ["another issuer", async () => sign({ sub: "s" }, { iss: "https://evil" })],
    ["a wrong audience", async () => sign({ sub: "s", aud: "other" })],
    ["garbage", async () => "not.a.jwt"],
    ["a token issued in the future", async () => sign({ sub: "s", aud: "api" }, { iat: "+10m", exp: "20m" })],
  ])("rejects %s as invalid-token", async (_name, make) => {
    const verifier = createOidcVerifier({ issuerUrl: issuer, insecure: true, audience: "api" });
    await expect(verifier.verify(await make())).rejects.toMatchObject({ code: "invalid-token" });
  });

  it("tolerates clock skew on iat within the configured tolerance", async () => {
    const verifier = createOidcVerifier({ issuerUrl: issuer, insecure: true, audience: "api", clockToleranceSeconds: 60 });
    await expect(verifier.verify(await sign({ sub: "s", aud: "api" }, { iat: "+20s" }))).resolves.toMatchObject({ sub: "s" });
    await expect(verifier.verify(await sign({ sub: "s", aud: "api" }, { iat: "+5m" }))).rejects.toMatchObject({ code: "invalid-token" });
  });

  it("checks the client id unless told to skip it", async () => {
    const token = await sign({ sub: "s", azp: "someone-else" });
    await expect(createOidcVerifier({ issuerUrl: issuer, insecure: true, clientId: "mine" }).verify(token)).rejects.toMatchObject({ code: "invalid-token" });
    await expect(createOidcVerifier({ issuerUrl: issuer, insecure: true, clientId: "mine", skipClientIdCheck: true }).verify(token)).resolves.toMatchObject({ sub: "s" });
  });

  it("refuses http issuers unless insecure, and reports discovery failures", async () => {
    expect(() => createOidcVerifier({ issuerUrl: issuer })).toThrow(/https/);
    const verifier = createOidcVerifier({ issuerUrl: `${issuer}/missing`, insecure: true });
    await expect(verifier.verify(await sign({ sub: "s" }))).rejects.toMatchObject({ code: "discovery-failed" });
  });
});

describe("a hanging or failing issuer", () => {
  let hanging: Server;
  let base: string;
  let discoveryRequests = 0;
  const stalled = new Set<ServerResponse>();

  beforeAll(async () => {
    // Discovery attempts are counted where the verifier makes them: on a loaded machine an attempt
    // given up after its 100 ms may not have reached the server yet.
    const realFetch = globalThis.fetch;
    vi.stubGlobal("fetch", (input: string | URL | Request, init?: RequestInit) => {
      if (String(input instanceof Request ? input.url : input).endsWith("/stall/.well-known/openid-configuration")) discoveryRequests += 1;
      return realFetch(input, init);
    });
    hanging = createServer((req, res) => {
      // /stall: discovery never answers. /keys-stall: discovery answers, the JWKS endpoint never does.
      if (req.url === "/stall/.well-known/openid-configuration") {
        stalled.add(res);
      } else if (req.url === "/keys-stall/.well-known/openid-configuration") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ issuer: `${base}/keys-stall`, jwks_uri: `${base}/keys-stall/certs` }));
      } else {
        stalled.add(res);
      }
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    vi.unstubAllGlobals();
    for (const res of stalled) res.destroy();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  });

  it("gives up on discovery after the bounded attempts, then fails fast during the cooldown", async () => {
    const verifier = createOidcVerifier({ issuerUrl: `${base}/stall`, insecure: true, fetchTimeoutMs: 100, discoveryAttempts: 2, discoveryFailureCooldownMs: 60_000 });
    const token = await sign({ sub: "s1" });
    // The issuer never answers: an answer at all proves the attempts are bounded (counted below).
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: "discovery-failed" });
    expect(discoveryRequests).toBe(2);
    // Within the cooldown no request waits on the issuer again.
    await Promise.all([1, 2, 3].map(() => expect(verifier.verify(token)).rejects.toMatchObject({ code: "discovery-failed" })));
    expect(discoveryRequests).toBe(2);
  });

  it("tries discovery again once the cooldown has passed", async () => {
    const before = discoveryRequests;
    const verifier = createOidcVerifier({ issuerUrl: `${base}/stall`, insecure: true, fetchTimeoutMs: 50, discoveryAttempts: 1, discoveryFailureCooldownMs: 0 });
    const token = await sign({ sub: "s1" });
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: "discovery-failed" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: "discovery-failed" });
    expect(discoveryRequests - before).toBe(2);
  });

  it("reports a JWKS endpoint that does not answer as the issuer being unavailable, within the timeout", async () => {
    const verifier = createOidcVerifier({ issuerUrl: `${base}/keys-stall`, insecure: true, fetchTimeoutMs: 100 });
    const token = await sign({ sub: "s1" }, { iss: `${base}/keys-stall` });
    // The JWKS endpoint never answers: an answer at all proves the fetch timed out.
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: "discovery-failed" });
  });
});
