// The SDK's streamed listing, consistency tokens and identity-header helper against the real
// engine (OIDC-authenticated gRPC over the store), across a page boundary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { type AuthzClient, subjectFromIdentityHeader } from "@gatehouse/client";
import { hostWorkspace } from "@gatehouse/store";
import { type Stack, startStack } from "./stack.js";

const ORG = "o-sdk";
const HOSTS = 1_050; // more than one page of 1,000

describe("@gatehouse/client against the real engine", () => {
  let stack: Stack;
  let client: AuthzClient;
  let visibleWorkspace: string;

  beforeAll(async () => {
    stack = await startStack();
    const { store } = stack;
    await store.tenants.bootstrap(ORG);
    await store.principals.upsert(ORG, [{ userId: "carol", username: "carol" }]);
    visibleWorkspace = (await store.workspaces.create(ORG, { name: "Visible" })).value.id;
    const hidden = (await store.workspaces.create(ORG, { name: "Hidden" })).value.id;
    // One tuple write for the bulk (reporting 1,050 hosts one by one takes far longer).
    await store.relationships.write(ORG, { touch: Array.from({ length: HOSTS }, (_, i) => hostWorkspace(`sdk-h-${i}`, visibleWorkspace)) });
    await store.hosts.report(ORG, "sdk-hidden", hidden);
    const role = (await store.roles.create(ORG, { name: "Host viewer", permissions: ["inventory:hosts:read"], scope: "default" })).value;
    await store.roleBindings.batchCreate(ORG, [{ resource: { type: "workspace", id: visibleWorkspace }, subject: { type: "principal", id: "carol" }, roleId: role.id }]);
    client = stack.client();
  });
  afterAll(async () => {
    client?.close();
    await stack?.close();
  });

  const carol = () => subjectFromIdentityHeader(encodeIdentityHeader({ orgId: ORG, userId: "carol", username: "carol" }));

  it("listResources streams every visible host across pages, each with a consistency token", async () => {
    let ids: string[] = [];
    // The engine follows the store's change feed: list again until it has applied every host.
    while (ids.length < HOSTS) {
      ids = [];
      const tokens = new Set<string>();
      for await (const item of client.listResources({ type: "host", reporter: "hbi", permission: "inventory_host_view", subject: carol() })) {
        ids.push(item.id);
        expect(item.consistencyToken).toEqual(expect.any(String));
        tokens.add(item.consistencyToken!);
      }
      if (ids.length < HOSTS) await new Promise((r) => setTimeout(r, 50)); // the engine follows the store's change feed
    }
    expect(new Set(ids).size).toBe(HOSTS);
    expect(ids).not.toContain("sdk-hidden");
  });

  it("a listing's token reads at least as fresh; stopping early is fine", async () => {
    const filter = await client.listWorkspaceIds({ permission: "inventory_host_view", subject: carol() });
    expect(filter.ids).toContain(visibleWorkspace);
    expect(filter.consistencyToken).toEqual(expect.any(String));
    const allowed = await client.checkResource({
      resource: { type: "host", reporter: "hbi", id: "sdk-h-0" },
      permission: "inventory_host_view",
      subject: carol(),
      consistency: { atLeastAsFresh: filter.consistencyToken! },
    });
    expect(allowed).toBe(true);
    let taken = 0;
    for await (const _ of client.listResources({ type: "host", reporter: "hbi", permission: "inventory_host_view", subject: carol() })) if (++taken === 3) break;
    expect(taken).toBe(3);
    expect(await client.checkResource({ resource: { type: "host", reporter: "hbi", id: "sdk-hidden" }, permission: "inventory_host_view", subject: carol() })).toBe(false);
  });
});
