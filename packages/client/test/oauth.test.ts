import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenProvider } from "@gatehouse/client";
import { type TestIssuer, startTestIssuer } from "./issuer.js";

function decode(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
}

describe("OAuth2 client credentials", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer({ svc: "s3cret" });
  });
  afterAll(() => issuer.stop());

  it("discovers the token endpoint and fetches a token for the service account", async () => {
    const tokens = createTokenProvider({ issuerUrl: issuer.url, clientId: "svc", clientSecret: "s3cret" });
    const token = await tokens.getToken();
    expect(decode(token)).toMatchObject({ sub: "svc", iss: issuer.url });
  });

  it("caches the token until shortly before expiry, then refreshes", async () => {
    let clock = Date.now();
    issuer.setExpiresIn(600);
    const tokens = createTokenProvider({ issuerUrl: issuer.url, clientId: "svc", clientSecret: "s3cret", now: () => clock });
    const before = issuer.tokenRequests();
    const first = await tokens.getToken();
    clock += 400_000; // 200 s left of 600: above the 20 % margin
    expect(await tokens.getToken()).toBe(first);
    expect(issuer.tokenRequests() - before).toBe(1);
    clock += 90_000; // 110 s left: inside the margin
    const refreshed = await tokens.getToken();
    expect(issuer.tokenRequests() - before).toBe(2);
    expect(refreshed).not.toBe(first);
    issuer.setExpiresIn(3600);
  });

  it("shares one refresh between concurrent callers", async () => {
    const tokens = createTokenProvider({ issuerUrl: issuer.url, clientId: "svc", clientSecret: "s3cret" });
    const before = issuer.tokenRequests();
    const all = await Promise.all(Array.from({ length: 20 }, () => tokens.getToken()));
    expect(new Set(all).size).toBe(1);
    expect(issuer.tokenRequests() - before).toBe(1);
  });

  it("fetches again after invalidate (the server refused the token)", async () => {
    const tokens = createTokenProvider({ issuerUrl: issuer.url, clientId: "svc", clientSecret: "s3cret" });
    const before = issuer.tokenRequests();
    await tokens.getToken();
    tokens.invalidate();
    await tokens.getToken();
    expect(issuer.tokenRequests() - before).toBe(2);
  });

  it("reports a wrong secret, a wrong issuer and an unreachable issuer as token-unavailable", async () => {
    await expect(createTokenProvider({ issuerUrl: issuer.url, clientId: "svc", clientSecret: "nope" }).getToken()).rejects.toMatchObject({
      code: "token-unavailable",
      message: expect.stringMatching(/HTTP 401/),
    });
    await expect(createTokenProvider({ issuerUrl: `${issuer.url}/other`, clientId: "svc", clientSecret: "s3cret" }).getToken()).rejects.toMatchObject({
      code: "token-unavailable",
    });
    await expect(createTokenProvider({ issuerUrl: "http://127.0.0.1:9", clientId: "svc", clientSecret: "s3cret", timeoutMs: 500 }).getToken()).rejects.toMatchObject({
      code: "token-unavailable",
    });
  });
});
