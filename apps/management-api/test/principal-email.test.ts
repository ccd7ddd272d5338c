// A user's e-mail is recorded from its x-rh-identity (identity.user.email) and answered by the v1
// principal listings; an e-mail the store would refuse is not recorded and does not fail the request.
// insights-rbac's v1 document says string: a principal without one has no `email` key (never null),
// and the v2 principals answer has no `email` key at all (upstream's v2 fields).
import { encodeIdentityHeader } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "./helpers.js";

const V1 = "/api/rbac/v1";
let app: TestApp;
beforeAll(async () => {
  app = await startApp({}, { backend: "pglite" });
});
afterAll(() => app.stop());

const as = (email: string | undefined, user = "mailer") => ({
  as: null,
  headers: { "x-rh-identity": encodeIdentityHeader({ orgId: "email-org", userId: `${user}-id`, username: user, isOrgAdmin: true, ...(email !== undefined ? { email } : {}) }) },
});

describe("principal e-mail from the identity", () => {
  it("records it, keeps it when an identity carries none, and ignores one the store would refuse", async () => {
    const emailOf = async () => (await app.request("GET", `${V1}/principals/?usernames=mailer`, as(undefined))).body.data[0].email;
    expect((await app.request("GET", `${V1}/principals/`, as("mailer@example.com"))).status).toBe(200);
    expect(await emailOf()).toBe("mailer@example.com");
    const overlong = await app.request("GET", `${V1}/principals/`, as(`${"a".repeat(330)}@example.com`));
    expect(overlong.status).toBe(200);
    expect((await app.request("GET", `${V1}/principals/`, as("bad\u0007@example.com"))).status).toBe(200);
    expect(await emailOf()).toBe("mailer@example.com");
    expect((await app.request("GET", `${V1}/principals/`, as("new@example.com"))).status).toBe(200);
    expect(await emailOf()).toBe("new@example.com");
    // A principal never seen with an e-mail has no e-mail key.
    await app.request("GET", `${V1}/principals/`, as(undefined, "quiet"));
    const quiet = (await app.request("GET", `${V1}/principals/?usernames=quiet`, as(undefined))).body.data[0];
    expect(quiet).toMatchObject({ username: "quiet" });
    expect(quiet).not.toHaveProperty("email");
  });

  it("addPrincipalToGroup and the group's detail answer no null e-mail; v2 /principals/ answers upstream's fields only", async () => {
    await app.request("GET", `${V1}/principals/`, as(undefined, "silent"));
    const group = (await app.request("POST", `${V1}/groups/`, { ...as(undefined), body: { name: "Mail-less" } })).body.uuid;
    const added = await app.request("POST", `${V1}/groups/${group}/principals/`, { ...as(undefined), body: { principals: [{ username: "silent" }, { username: "mailer" }] } });
    expect(added.status, added.text).toBe(200);
    const members = added.body.principals as Record<string, unknown>[];
    expect(members.find((p) => p["username"] === "silent")).not.toHaveProperty("email");
    expect(members.find((p) => p["username"] === "mailer")?.["email"]).toBe("new@example.com");
    const v2 = await app.request("GET", "/api/rbac/v2/principals/?limit=100", as(undefined));
    for (const item of v2.body.data as Record<string, unknown>[]) {
      expect(Object.keys(item).sort()).toEqual(["group_count", "service_account_id", "type", "user_id", "username", "uuid"]);
    }
  });
});
