import { describe, expect, it } from "vitest";
import { subjectFromIdentityHeader } from "@gatehouse/client";

const header = (identity: unknown) => Buffer.from(JSON.stringify({ identity })).toString("base64");
const principal = (id: string) => ({ resource: { resourceType: "principal", resourceId: id, reporter: { type: "rbac" } } });

describe("subjectFromIdentityHeader", () => {
  it("turns a User's or a ServiceAccount's user id into the principal subject", () => {
    expect(subjectFromIdentityHeader(header({ type: "User", org_id: "o1", user: { user_id: "u-7", username: "alice" } }))).toEqual(principal("redhat/u-7"));
    expect(subjectFromIdentityHeader(header({ type: "ServiceAccount", service_account: { user_id: "sa-1", client_id: "c-1" } }), "example")).toEqual(principal("example/sa-1"));
    expect(subjectFromIdentityHeader(header({ type: "ServiceAccount", service_account: { client_id: "c-1" } }))).toEqual(principal("redhat/c-1"));
  });

  it("refuses missing, oversized, undecodable and user-less headers without echoing them", () => {
    const huge = "A".repeat(20_000);
    for (const bad of [
      "",
      huge,
      "%%%not-base64%%%",
      Buffer.from("[1,2]").toString("base64"),
      header({ type: "User", user: { username: "alice" } }),
      header({ type: "User", user: { user_id: "a/b" } }),
    ]) {
      let error: unknown;
      try {
        subjectFromIdentityHeader(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: "invalid-argument" });
      expect(String((error as Error).message)).not.toContain(huge.slice(0, 100));
    }
  });
});
