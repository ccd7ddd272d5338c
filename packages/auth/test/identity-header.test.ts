import { describe, expect, it } from "vitest";
import { AuthError, encodeIdentityHeader, parseIdentityHeader } from "../src/index.js";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof AuthError) return error.code;
    throw error;
  }
  throw new Error("expected an AuthError");
}

describe("parseIdentityHeader", () => {
  it("reads a user identity and lower-cases the username", () => {
    const header = b64({
      identity: { org_id: "123", account_number: "42", type: "User", user: { username: "Alice", user_id: "u1", is_org_admin: true, email: "a@x" } },
    });
    expect(parseIdentityHeader(header)).toEqual({
      orgId: "123",
      accountNumber: "42",
      type: "User",
      userId: "u1",
      username: "alice",
      isOrgAdmin: true,
      isInternal: false,
      crossAccess: false,
      isServiceAccount: false,
      email: "a@x",
      firstName: null,
      lastName: null,
      clientId: null,
    });
  });

  it("reads an associate's internal flag, names and cross-account access, as encodeIdentityHeader writes them", () => {
    const header = encodeIdentityHeader({ orgId: "9", userId: "a1", username: "Assoc", isInternal: true, crossAccess: true, email: "a@redhat.com", firstName: "Ann", lastName: "Lee" });
    expect(parseIdentityHeader(header)).toMatchObject({ orgId: "9", isInternal: true, crossAccess: true, email: "a@redhat.com", firstName: "Ann", lastName: "Lee" });
    expect(parseIdentityHeader(encodeIdentityHeader({ orgId: "9", userId: "a1" })).crossAccess).toBe(false);
  });

  it("repairs missing base64 padding", () => {
    const header = b64({ identity: { org_id: "1", user: { username: "bo", user_id: "b" } } }).replace(/=+$/, "");
    expect(parseIdentityHeader(header).userId).toBe("b");
  });

  it("falls back to identity.internal.org_id", () => {
    const header = b64({ identity: { internal: { org_id: "77" }, user: { username: "x", user_id: "x" } } });
    expect(parseIdentityHeader(header).orgId).toBe("77");
  });

  it("reads a service account as non-admin keyed by client id", () => {
    const header = encodeIdentityHeader({ orgId: "9", serviceAccount: { clientId: "svc-1" } });
    const identity = parseIdentityHeader(header);
    expect(identity).toMatchObject({ isServiceAccount: true, isOrgAdmin: false, clientId: "svc-1", userId: "svc-1" });
  });

  it("rejects each malformed header with its own code", () => {
    expect(codeOf(() => parseIdentityHeader(""))).toBe("missing-credentials");
    expect(codeOf(() => parseIdentityHeader("%%%"))).toBe("malformed-identity");
    expect(codeOf(() => parseIdentityHeader(Buffer.from("not json").toString("base64")))).toBe("malformed-identity");
    expect(codeOf(() => parseIdentityHeader(b64({ nope: 1 })))).toBe("malformed-identity");
    expect(codeOf(() => parseIdentityHeader(b64({ identity: { user: { username: "a" } } })))).toBe("missing-org-id");
    expect(codeOf(() => parseIdentityHeader(b64({ identity: { org_id: "1" } })))).toBe("no-principal");
    expect(codeOf(() => parseIdentityHeader(b64({ identity: { org_id: "1", service_account: {} } })))).toBe("missing-client-id");
  });

  it("refuses unpaired surrogates and invalid UTF-8 instead of reading them as U+FFFD", () => {
    const user = (userId: string) => Buffer.from(`{"identity":{"org_id":"1","user":{"user_id":"${userId}","username":"u"}}}`).toString("base64");
    expect(codeOf(() => parseIdentityHeader(user("a\\ud800")))).toBe("malformed-identity");
    expect(codeOf(() => parseIdentityHeader(user("\\udc00")))).toBe("malformed-identity");
    const cesu = Buffer.concat([Buffer.from('{"identity":{"org_id":"1","user":{"user_id":"a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","username":"u"}}}')]);
    expect(codeOf(() => parseIdentityHeader(cesu.toString("base64")))).toBe("malformed-identity");
    expect(parseIdentityHeader(user("a\\ud83d\\ude00")).userId).toBe("a\u{1F600}");
  });

  it("round-trips encodeIdentityHeader", () => {
    const identity = parseIdentityHeader(encodeIdentityHeader({ orgId: "5", userId: "u5", username: "Eve", isOrgAdmin: true }));
    expect(identity).toMatchObject({ orgId: "5", userId: "u5", username: "eve", isOrgAdmin: true });
  });
});
