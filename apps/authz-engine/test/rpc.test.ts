import { Metadata, status } from "@grpc/grpc-js";
import { Allowed, WriteVisibility, type StreamedListObjectsRequest } from "@gatehouse/proto";
import { encodeIdentityHeader } from "@gatehouse/auth";
import type { Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, childWorkspace, host, listAll, principal, readGrant, rejection, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;
let tenant: Tenant;
let hostWorkspaceId: string;

beforeAll(async () => {
  engine = await startEngine();
  tenant = (await engine.store.tenants.bootstrap("rpc-org")).value;
  hostWorkspaceId = (await engine.store.workspaces.create("rpc-org", { name: "hosts", parentId: tenant.defaultWorkspaceId })).value.id;
  const { revision } = await engine.store.relationships.write("rpc-org", {
    touch: [...readGrant(tenant.defaultWorkspaceId, "alice"), childWorkspace("ws-child", tenant.defaultWorkspaceId)],
  });
  await call(engine.client, "check", {
    object: workspace(tenant.defaultWorkspaceId),
    relation: "view",
    subject: { resource: principal("alice") },
    consistency: { atLeastAsFresh: { token: engine.store.tokens.encode(revision) } },
  });
});

afterAll(async () => {
  await engine?.close();
});

describe("Check / CheckForUpdate", () => {
  it("allows, denies, and returns a consistency token", async () => {
    const allowed = await call(engine.client, "check", {
      object: workspace("ws-child"),
      relation: "view",
      subject: { resource: principal("alice") },
    });
    expect(allowed.allowed).toBe(Allowed.ALLOWED_TRUE);
    expect(engine.store.tokens.decode(allowed.consistencyToken!.token)).toBeGreaterThan(0);
    const denied = await call(engine.client, "check", {
      object: workspace("ws-child"),
      relation: "view",
      subject: { resource: principal("bob") },
    });
    expect(denied.allowed).toBe(Allowed.ALLOWED_FALSE);
    const forUpdate = await call(engine.client, "checkForUpdate", {
      object: workspace(tenant.rootWorkspaceId),
      relation: "view",
      subject: { resource: principal("alice") },
    });
    // Grants inherit downward only: alice holds view on default and below, not on root.
    expect(forUpdate.allowed).toBe(Allowed.ALLOWED_FALSE);
    expect(forUpdate.consistencyToken?.token).toMatch(/^GH1\./);
  });

  it("rejects bad input with INVALID_ARGUMENT naming the field and rule", async () => {
    const noRelation = await rejection(call(engine.client, "check", { object: workspace("w"), relation: "", subject: { resource: principal("a") } }));
    expect(noRelation.code).toBe(status.INVALID_ARGUMENT);
    expect(noRelation.details).toMatch(/relation.*string\.min_len/);
    const noSubject = await rejection(call(engine.client, "check", { object: workspace("w"), relation: "view" }));
    expect(noSubject.code).toBe(status.INVALID_ARGUMENT);
    expect(noSubject.details).toContain("subject");
    const badToken = await rejection(
      call(engine.client, "check", {
        object: workspace("w"),
        relation: "view",
        subject: { resource: principal("a") },
        consistency: { atLeastAsFresh: { token: "not-a-token" } },
      }),
    );
    expect(badToken.code).toBe(status.INVALID_ARGUMENT);
    const unknownPermission = await rejection(call(engine.client, "check", { object: workspace("w"), relation: "no_such_permission", subject: { resource: principal("a") } }));
    expect(unknownPermission.code).toBe(status.INVALID_ARGUMENT);
  });
});

describe("bulk checks", () => {
  const item = (ws: string, user: string, relation = "view") => ({ object: workspace(ws), relation, subject: { resource: principal(user) } });

  it("answers one pair per item in order, with per-item errors", async () => {
    const items = [item("ws-child", "alice"), item("ws-child", "bob"), item("ws-child", "alice", "no_such_permission")];
    const response = await call(engine.client, "checkBulk", { items });
    expect(response.pairs).toHaveLength(3);
    expect(response.pairs.map((p) => p.request?.subject?.resource?.resourceId)).toEqual(["redhat/alice", "redhat/bob", "redhat/alice"]);
    expect(response.pairs[0]?.item?.allowed).toBe(Allowed.ALLOWED_TRUE);
    expect(response.pairs[1]?.item?.allowed).toBe(Allowed.ALLOWED_FALSE);
    expect(response.pairs[2]?.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(response.consistencyToken?.token).toBeTruthy();
    const forUpdate = await call(engine.client, "checkForUpdateBulk", { items: items.slice(0, 2) });
    expect(forUpdate.pairs.map((p) => p.item?.allowed)).toEqual([Allowed.ALLOWED_TRUE, Allowed.ALLOWED_FALSE]);
  });

  it("enforces 1..1000 items and rejects at_least_as_acknowledged", async () => {
    expect((await rejection(call(engine.client, "checkBulk", { items: [] }))).code).toBe(status.INVALID_ARGUMENT);
    const tooMany = Array.from({ length: 1001 }, () => item("ws-child", "alice"));
    const error = await rejection(call(engine.client, "checkBulk", { items: tooMany }));
    expect(error.details).toMatch(/max_items/);
    const thousand = await call(engine.client, "checkBulk", { items: tooMany.slice(1) });
    expect(thousand.pairs).toHaveLength(1000);
    const acknowledged = await rejection(call(engine.client, "checkBulk", { items: [item("ws-child", "alice")], consistency: { atLeastAsAcknowledged: true } }));
    expect(acknowledged.details).toContain("inventory-managed consistency tokens aren't available");
  });
});

describe("self checks", () => {
  const identity = (userId: string) => {
    const metadata = new Metadata();
    metadata.set("x-rh-identity", encodeIdentityHeader({ orgId: "rpc-org", userId, username: userId }));
    return metadata;
  };

  it("derives the subject from the caller's identity", async () => {
    const self = await call(engine.client, "checkSelf", { object: workspace("ws-child"), relation: "view" }, identity("alice"));
    expect(self.allowed).toBe(Allowed.ALLOWED_TRUE);
    const bulk = await call(
      engine.client,
      "checkSelfBulk",
      {
        items: [
          { object: workspace("ws-child"), relation: "view" },
          { object: workspace(tenant.rootWorkspaceId), relation: "view" },
        ],
      },
      identity("alice"),
    );
    expect(bulk.pairs.map((p) => p.item?.allowed)).toEqual([Allowed.ALLOWED_TRUE, Allowed.ALLOWED_FALSE]);
  });

  it("is UNAUTHENTICATED without an identity", async () => {
    const error = await rejection(call(engine.client, "checkSelf", { object: workspace("ws-child"), relation: "view" }));
    expect(error.code).toBe(status.UNAUTHENTICATED);
  });
});

describe("StreamedListObjects / StreamedListSubjects", () => {
  const request = (limit?: number, token?: string): StreamedListObjectsRequest => ({
    objectType: { resourceType: "workspace", reporterType: "rbac" },
    relation: "view",
    subject: { resource: principal("carol") },
    ...(limit !== undefined ? { pagination: { limit, ...(token !== undefined ? { continuationToken: token } : {}) } } : {}),
  });

  it("pages with a token on every item, ends with an empty page, never repeats while writes happen", async () => {
    const parents = Array.from({ length: 25 }, (_, i) => childWorkspace(`carol-ws-${String(i).padStart(2, "0")}`, tenant.defaultWorkspaceId));
    const { revision } = await engine.store.relationships.write("rpc-org", { touch: [...parents, ...readGrant(tenant.defaultWorkspaceId, "carol")] });
    const fresh = { atLeastAsFresh: { token: engine.store.tokens.encode(revision) } };
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await listAll(engine.client, { ...request(10, token), consistency: fresh });
      pages++;
      if (page.length === 0) break;
      for (const item of page) {
        expect(item.pagination?.continuationToken).toBeTruthy();
        expect(item.object?.reporter?.type).toBe("rbac");
        expect(item.consistencyToken?.token).toBeTruthy();
        seen.push(item.object!.resourceId);
      }
      token = page.at(-1)!.pagination!.continuationToken;
      if (pages === 1) {
        // A write between pages: one workspace removed, one added before and one after the cursor.
        await engine.store.relationships.write("rpc-org", {
          delete: [parents[15]!],
          touch: [childWorkspace("carol-ws-00a", tenant.defaultWorkspaceId), childWorkspace("carol-ws-99", tenant.defaultWorkspaceId)],
        });
        await call(engine.client, "checkForUpdate", { object: workspace("x"), relation: "view", subject: { resource: principal("carol") } });
      }
      expect(pages).toBeLessThan(10);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toContain("carol-ws-99");
    expect(seen).not.toContain("carol-ws-15");
    expect(seen).toContain(tenant.defaultWorkspaceId);
  });

  it("defaults the page size and caps it at 1000", async () => {
    const page = await listAll(engine.client, request());
    expect(page.length).toBeGreaterThan(0);
    expect(page.length).toBeLessThanOrEqual(1000);
  });

  it("treats a present-but-empty continuation token as the start, rejects a malformed one", async () => {
    const fromStart = await listAll(engine.client, request(5, ""));
    expect(fromStart).toHaveLength(5);
    const error = await rejection(listAll(engine.client, request(5, "garbage")));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    const zero = await rejection(listAll(engine.client, request(0)));
    expect(zero.code).toBe(status.INVALID_ARGUMENT);
    expect(zero.details).toContain("pagination.limit");
  });

  it("lists subjects holding a permission", async () => {
    const subjects: string[] = [];
    for await (const item of engine.client.streamedListSubjects({
      resource: workspace("ws-child"),
      relation: "view",
      subjectType: { resourceType: "principal", reporterType: "rbac" },
    })) {
      subjects.push(item.subject.resource.resourceId);
      expect(item.pagination.continuationToken).toBeTruthy();
    }
    expect(subjects).toContain("redhat/alice");
    expect(subjects).not.toContain("redhat/bob");
  });
});

describe("ReportResource / DeleteResource", () => {
  const report = (id: string, ws: string | undefined, visibility = WriteVisibility.IMMEDIATE) => ({
    type: "host",
    reporterType: "hbi",
    reporterInstanceId: "hbi-instance",
    representations: {
      metadata: { localResourceId: id, apiHref: `https://hbi/hosts/${id}` },
      ...(ws ? { common: { workspace_id: ws } } : { common: {} }),
    },
    writeVisibility: visibility,
  });
  const hostView = (id: string) => ({ object: host(id), relation: "view", subject: { resource: principal("alice") } });

  it("places a host in its workspace; IMMEDIATE makes it visible at once; delete removes it", async () => {
    await call(engine.client, "reportResource", report("host-1", hostWorkspaceId));
    expect((await call(engine.client, "check", hostView("host-1"))).allowed).toBe(Allowed.ALLOWED_TRUE);
    // Moving the host to the root workspace (alice has no grant there) replaces the tuple.
    await call(engine.client, "reportResource", report("host-1", tenant.rootWorkspaceId));
    expect((await call(engine.client, "check", hostView("host-1"))).allowed).toBe(Allowed.ALLOWED_FALSE);
    await call(engine.client, "reportResource", report("host-1", hostWorkspaceId));
    await call(engine.client, "deleteResource", { reference: host("host-1") });
    expect((await call(engine.client, "checkForUpdate", hostView("host-1"))).allowed).toBe(Allowed.ALLOWED_FALSE);
    const again = await rejection(call(engine.client, "deleteResource", { reference: host("host-1") }));
    expect(again.code).toBe(status.NOT_FOUND);
  });

  it("validates the report", async () => {
    const noWorkspace = await rejection(call(engine.client, "reportResource", report("host-2", undefined)));
    expect(noWorkspace.code).toBe(status.INVALID_ARGUMENT);
    expect(noWorkspace.details).toContain("workspace_id");
    const badType = await rejection(call(engine.client, "reportResource", { ...report("h", "ws-child"), type: "ho st" }));
    expect(badType.details).toMatch(/type.*pattern/);
    const badVisibility = await rejection(call(engine.client, "reportResource", { ...report("h", "ws-child"), writeVisibility: 7 as WriteVisibility }));
    expect(badVisibility.details).toContain("write_visibility");
    const unknownType = await rejection(call(engine.client, "reportResource", { ...report("h", "ws-child"), type: "widget" }));
    expect(unknownType.code).toBe(status.INVALID_ARGUMENT);
    // A workspace nobody has created is accepted and held (test/pending-placement.test.ts).
    await call(engine.client, "reportResource", report("h", "no-such-workspace"));
    expect(await engine.store.placements.get("hbi/host", "h")).toMatchObject({ workspaceId: "no-such-workspace" });
    const noReference = await rejection(call(engine.client, "deleteResource", {}));
    expect(noReference.code).toBe(status.INVALID_ARGUMENT);
  });
});
