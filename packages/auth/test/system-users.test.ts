import { describe, expect, it } from "vitest";
import { AuthError, parseSystemUsers, resolveSystemPrincipal, type VerifiedToken } from "../src/index.js";

const token = (over: Partial<VerifiedToken> = {}): VerifiedToken => ({
  sub: "svc",
  issuer: "https://sso",
  clientId: "svc-client",
  username: null,
  orgId: "100",
  accountNumber: null,
  isOrgAdmin: false,
  claims: {},
  ...over,
});

describe("parseSystemUsers", () => {
  it("parses flags and defaults missing ones to false", () => {
    const users = parseSystemUsers('{"a":{"admin":true,"allow_any_org":true},"b":{"is_service_account":true}}');
    expect(users.get("a")).toEqual({ admin: true, isServiceAccount: false, allowAnyOrg: true });
    expect(users.get("b")).toEqual({ admin: false, isServiceAccount: true, allowAnyOrg: false });
    expect(parseSystemUsers(undefined).size).toBe(0);
  });

  it.each(["{", "[]", '{"a":1}', '{"a":{"admin":"yes"}}', '{"a":{"root":true}}'])("rejects %s", (json) => {
    expect(() => parseSystemUsers(json)).toThrow(AuthError);
  });
});

describe("resolveSystemPrincipal", () => {
  const users = parseSystemUsers('{"svc":{"admin":true},"any":{"admin":false,"allow_any_org":true}}');

  it("uses the token organisation and the admin flag", () => {
    expect(resolveSystemPrincipal(token(), users)).toMatchObject({ orgId: "100", userId: "svc", isOrgAdmin: true, username: "svc-client" });
  });

  it("rejects subjects that are not configured", () => {
    expect(() => resolveSystemPrincipal(token({ sub: "other" }), users)).toThrow(/not a configured system user/);
  });

  it("lets allow_any_org callers choose the organisation by header", () => {
    expect(resolveSystemPrincipal(token({ sub: "any", orgId: null }), users, { orgId: "555" }).orgId).toBe("555");
  });

  it("rejects a header that disagrees with the token organisation", () => {
    expect(() => resolveSystemPrincipal(token(), users, { orgId: "999" })).toThrow(expect.objectContaining({ code: "org-mismatch" }));
  });

  it("rejects a caller without any organisation", () => {
    expect(() => resolveSystemPrincipal(token({ sub: "any", orgId: null }), users)).toThrow(expect.objectContaining({ code: "missing-org-id" }));
  });
});
