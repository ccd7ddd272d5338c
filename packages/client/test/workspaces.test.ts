import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthzClient, createTokenProvider, createWorkspaceResolver } from "@gatehouse/client";
import { type TestIssuer, startTestIssuer } from "./issuer.js";

interface Recorded {
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** A local HTTP server answering like the workspace lookup and recording every request it gets. */
async function startLookupServer(answer: (req: http.IncomingMessage) => { status: number; body: unknown }) {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    const { status, body } = answer(req);
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

const envelope = (id: string, type: string) => ({ meta: { count: 1, limit: 10, offset: 0 }, data: [{ id, type, name: type, description: null }] });

describe("root/default workspace lookups", () => {
  let issuer: TestIssuer;
  let lookup: Awaited<ReturnType<typeof startLookupServer>>;
  let unauthorisedOnce = false;
  beforeAll(async () => {
    issuer = await startTestIssuer({ svc: "s3cret" });
    lookup = await startLookupServer((req) => {
      const org = req.headers["x-rh-rbac-org-id"];
      const type = new URL(req.url ?? "", "http://x").searchParams.get("type");
      if (unauthorisedOnce) {
        unauthorisedOnce = false;
        return { status: 401, body: {} };
      }
      if (org === "missing") return { status: 404, body: { detail: "no tenant" } };
      if (org === "two") return { status: 200, body: { data: [{ id: "a" }, { id: "b" }] } };
      return { status: 200, body: envelope(`${type}-of-${String(org)}`, type ?? "") };
    });
  });
  afterAll(async () => {
    await lookup.close();
    await issuer.stop();
  });

  it("sends the service token and org header, never the end user's identity, and caches the ids without expiry", async () => {
    const client = createAuthzClient({
      enabled: true,
      url: "127.0.0.1:1", // the gRPC side is not used by lookups
      workspaceUrl: lookup.url,
      insecure: true,
      auth: { enabled: true, clientId: "svc", clientSecret: "s3cret", oidcIssuer: issuer.url },
    });
    // What an application handler would have at hand: the user's identity header. It must stay here.
    const userIdentity = Buffer.from(JSON.stringify({ identity: { org_id: "o1", user: { user_id: "alice" } } })).toString("base64");
    const incomingRequestHeaders = { "x-rh-identity": userIdentity };
    expect(incomingRequestHeaders["x-rh-identity"]).toBeTruthy();

    const before = lookup.requests.length;
    expect(await client.rootWorkspaceId("o1")).toBe("root-of-o1");
    expect(await client.defaultWorkspaceId("o1")).toBe("default-of-o1");
    expect(await client.rootWorkspaceId("o1")).toBe("root-of-o1");
    const sent = lookup.requests.slice(before);
    expect(sent.map((r) => r.url)).toEqual(["/api/rbac/v2/workspaces/?type=root", "/api/rbac/v2/workspaces/?type=default"]);
    for (const { headers } of sent) {
      expect(headers["x-rh-rbac-org-id"]).toBe("o1");
      expect(headers["authorization"]).toMatch(/^Bearer ey/);
      expect(headers["x-rh-identity"]).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(userIdentity);
    }
    client.close();
  });

  it("shares one request between concurrent lookups of the same id", async () => {
    const resolver = createWorkspaceResolver({ baseUrl: lookup.url });
    const before = lookup.requests.length;
    const ids = await Promise.all(Array.from({ length: 10 }, () => resolver.defaultWorkspaceId("o7")));
    expect(new Set(ids)).toEqual(new Set(["default-of-o7"]));
    expect(lookup.requests.length - before).toBe(1);
  });

  it("reports an unknown organisation as org-not-found and does not cache the failure", async () => {
    const resolver = createWorkspaceResolver({ baseUrl: lookup.url });
    const before = lookup.requests.length;
    await expect(resolver.rootWorkspaceId("missing")).rejects.toMatchObject({ code: "org-not-found" });
    await expect(resolver.rootWorkspaceId("missing")).rejects.toMatchObject({ code: "org-not-found" });
    expect(lookup.requests.length - before).toBe(2);
  });

  it("rejects a response without exactly one workspace, and a bad org id before any request", async () => {
    const resolver = createWorkspaceResolver({ baseUrl: lookup.url });
    await expect(resolver.rootWorkspaceId("two")).rejects.toMatchObject({ code: "invalid-response", message: expect.stringMatching(/Unexpected number of root workspaces: 2/) });
    await expect(resolver.rootWorkspaceId("o 1; drop")).rejects.toMatchObject({ code: "invalid-argument" });
  });

  it("retries once with a fresh token after a 401", async () => {
    const tokens = createTokenProvider({ issuerUrl: issuer.url, clientId: "svc", clientSecret: "s3cret" });
    const resolver = createWorkspaceResolver({ baseUrl: lookup.url, tokens });
    const tokenRequestsBefore = issuer.tokenRequests();
    unauthorisedOnce = true;
    expect(await resolver.rootWorkspaceId("o9")).toBe("root-of-o9");
    expect(issuer.tokenRequests() - tokenRequestsBefore).toBe(2);
  });

  it("fails with deadline-exceeded or unavailable when the lookup does not answer", async () => {
    const resolver = createWorkspaceResolver({ baseUrl: "http://127.0.0.1:9", timeoutMs: 300 });
    await expect(resolver.rootWorkspaceId("o1")).rejects.toMatchObject({ code: expect.stringMatching(/unavailable|deadline-exceeded/) });
  });
});
