import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AuthError, type AuthErrorCode } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authRefusal, problemBody, writeProblem } from "@gatehouse/problem";

describe("problemBody", () => {
  it("fills title, type and detail from the status and the first error", () => {
    expect(problemBody(404, [{ message: "No Workspace matches the given query.", field: "detail" }])).toEqual({
      status: 404,
      title: "Not found.",
      detail: "No Workspace matches the given query.",
      type: "http://project-kessel.org/problems/not-found",
      errors: [{ message: "No Workspace matches the given query.", field: "detail" }],
    });
  });

  it("never answers an empty errors list, and keeps an explicit type and instance", () => {
    const body = problemBody(503, [], { type: "urn:x", instance: "/api/rbac/v2/workspaces/1/" });
    expect(body).toMatchObject({ title: "Service unavailable.", detail: "Service unavailable.", type: "urn:x", instance: "/api/rbac/v2/workspaces/1/" });
    expect(body.errors).toEqual([{ message: "Service unavailable.", field: "detail" }]);
  });

  it.each([
    [400, "invalid-request"],
    [413, "invalid-request"],
    [401, "unauthenticated"],
    [403, "insufficient-permission"],
    [409, "conflict"],
    [500, "internal-error"],
    [503, "service-unavailable"],
  ])("types status %i as %s", (status, slug) => {
    expect(problemBody(status, []).type).toBe(`http://project-kessel.org/problems/${slug}`);
  });
});

describe("writeProblem", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => writeProblem(res, 503, [{ message: "down", field: "detail" }], { headers: { "retry-after": "1" } }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("writes status, content type, headers and the body", async () => {
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toMatchObject({ status: 503, detail: "down", type: "http://project-kessel.org/problems/service-unavailable" });
  });
});

describe("authRefusal", () => {
  const cases: [AuthErrorCode, number][] = [
    ["missing-credentials", 401],
    ["malformed-identity", 401],
    ["no-principal", 401],
    ["invalid-token", 401],
    ["missing-org-id", 400],
    ["missing-client-id", 400],
    ["unknown-system-user", 403],
    ["org-mismatch", 403],
    ["discovery-failed", 503],
    ["invalid-config", 500],
  ];
  it.each(cases)("answers %s with %i", (code, status) => {
    expect(authRefusal(new AuthError(code, "why")).status).toBe(status);
  });

  it("hides internal URLs of discovery and configuration failures, and asks for a retry", () => {
    const discovery = authRefusal(new AuthError("discovery-failed", "OIDC discovery at http://10.0.0.1/realm failed."));
    expect(discovery.errors[0]!.message).toBe("The identity provider is unavailable.");
    expect(discovery.headers).toEqual({ "retry-after": "5" });
    expect(JSON.stringify(authRefusal(new AuthError("invalid-config", "bad http://10.0.0.1")))).not.toContain("10.0.0.1");
  });
});
