// A user's e-mail is recorded from its x-rh-identity (identity.user.email) and answered by the v1
// principal listings; an e-mail the store would refuse is not recorded and does not fail the request.
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
    // A principal never seen with an e-mail answers null.
    await app.request("GET", `${V1}/principals/`, as(undefined, "quiet"));
    expect((await app.request("GET", `${V1}/principals/?usernames=quiet`, as(undefined))).body.data[0]).toMatchObject({ username: "quiet", email: null });
  });
});
