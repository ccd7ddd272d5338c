// ReportResource into a workspace id Gatehouse has not seen: accepted (as inventory-api does),
// held without a tuple, placed when the workspace appears — in its tenant, never another's.
import { randomUUID } from "node:crypto";
import { Metadata, status } from "@grpc/grpc-js";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { Allowed, WriteVisibility } from "@gatehouse/proto";
import type { Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, childWorkspace, host, principal, readGrant, rejection, startEngine, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;
let orgA: Tenant;
let orgB: Tenant;
let knownWorkspace: string;

const reporterOf = (orgId: string): Metadata => {
  const metadata = new Metadata();
  metadata.set("x-rh-identity", encodeIdentityHeader({ orgId, userId: `reporter-${orgId}`, username: `reporter-${orgId}` }));
  return metadata;
};

const report = (id: string, workspaceId: string) => ({
  type: "host",
  reporterType: "HBI",
  reporterInstanceId: "hbi-1",
  representations: { metadata: { localResourceId: id, apiHref: `https://hbi/hosts/${id}` }, common: { workspace_id: workspaceId } },
  writeVisibility: WriteVisibility.IMMEDIATE,
});

const canView = async (userId: string, hostId: string): Promise<boolean> =>
  (await call(engine.client, "checkForUpdate", { object: host(hostId), relation: "view", subject: { resource: principal(userId) } })).allowed === Allowed.ALLOWED_TRUE;

/** The workspace appears the way a replicated management plane creates it: as its parent tuple. */
const createWorkspace = (tenant: Tenant, id: string) => engine.store.relationships.write(tenant.orgId, { touch: [childWorkspace(id, tenant.defaultWorkspaceId)] });

beforeAll(async () => {
  engine = await startEngine();
  orgA = (await engine.store.tenants.bootstrap("pending-a")).value;
  orgB = (await engine.store.tenants.bootstrap("pending-b")).value;
  knownWorkspace = (await engine.store.workspaces.create("pending-a", { name: "known", parentId: orgA.defaultWorkspaceId })).value.id;
  await engine.store.relationships.write("pending-a", { touch: readGrant(orgA.defaultWorkspaceId, "alice") });
  await engine.store.relationships.write("pending-b", { touch: readGrant(orgB.defaultWorkspaceId, "bob") });
});

afterAll(async () => {
  await engine?.close();
});

describe("ReportResource into a workspace not created yet", () => {
  it("is accepted, reaches nobody, and is placed once the workspace exists", async () => {
    const workspaceId = randomUUID();
    await call(engine.client, "reportResource", report("pending-host-1", workspaceId), reporterOf("pending-a"));
    expect(await engine.store.placements.get("hbi/host", "pending-host-1")).toMatchObject({ workspaceId, reporterOrg: "pending-a" });
    expect(await canView("alice", "pending-host-1")).toBe(false);

    await createWorkspace(orgA, workspaceId);
    expect(await canView("alice", "pending-host-1")).toBe(true);
    expect(await canView("bob", "pending-host-1")).toBe(false);
    expect(await engine.store.placements.get("hbi/host", "pending-host-1")).toBeUndefined();
    const tuples = await engine.store.relationships.read("pending-a", { resourceType: "hbi/host", resourceId: "pending-host-1" });
    expect(tuples.map((t) => t.subjectId)).toEqual([workspaceId]);

    // Now known: reports and deletes go the ordinary way.
    await call(engine.client, "reportResource", report("pending-host-1", knownWorkspace), reporterOf("pending-a"));
    expect((await engine.store.relationships.read("pending-a", { resourceType: "hbi/host", resourceId: "pending-host-1" })).map((t) => t.subjectId)).toEqual([knownWorkspace]);
    await call(engine.client, "deleteResource", { reference: host("pending-host-1") }, reporterOf("pending-a"));
    expect(await canView("alice", "pending-host-1")).toBe(false);
  });

  it("never attaches a report to another tenant's workspace", async () => {
    const workspaceId = randomUUID();
    // Tenant B's reporter names a workspace that tenant A creates afterwards.
    await call(engine.client, "reportResource", report("pending-host-2", workspaceId), reporterOf("pending-b"));
    await createWorkspace(orgA, workspaceId);
    expect(await canView("alice", "pending-host-2")).toBe(false);
    expect(await canView("bob", "pending-host-2")).toBe(false);
    expect(await engine.store.relationships.read("pending-a", { resourceType: "hbi/host", resourceId: "pending-host-2" })).toEqual([]);
    expect(await engine.store.placements.get("hbi/host", "pending-host-2")).toBeUndefined();
  });

  it("places an anonymous report (engine without authentication) in the tenant that creates the workspace", async () => {
    const workspaceId = randomUUID();
    await call(engine.client, "reportResource", report("pending-host-3", workspaceId));
    expect(await engine.store.placements.get("hbi/host", "pending-host-3")).toMatchObject({ reporterOrg: null });
    await createWorkspace(orgB, workspaceId);
    expect(await canView("bob", "pending-host-3")).toBe(true);
    expect(await canView("alice", "pending-host-3")).toBe(false);
  });

  it("a later report wins over a held one", async () => {
    const workspaceId = randomUUID();
    await call(engine.client, "reportResource", report("pending-host-4", workspaceId), reporterOf("pending-a"));
    await call(engine.client, "reportResource", report("pending-host-4", knownWorkspace), reporterOf("pending-a"));
    expect(await engine.store.placements.get("hbi/host", "pending-host-4")).toBeUndefined();
    await createWorkspace(orgA, workspaceId);
    const tuples = await engine.store.relationships.read("pending-a", { resourceType: "hbi/host", resourceId: "pending-host-4" });
    expect(tuples.map((t) => t.subjectId)).toEqual([knownWorkspace]);
  });

  it("DeleteResource drops a held report: only the reporter's tenant may, and nothing is placed later", async () => {
    const workspaceId = randomUUID();
    await call(engine.client, "reportResource", report("pending-host-5", workspaceId), reporterOf("pending-a"));
    const foreign = await rejection(call(engine.client, "deleteResource", { reference: { ...host("pending-host-5"), reporter: { type: "HBI" } } }, reporterOf("pending-b")));
    expect(foreign.code).toBe(status.NOT_FOUND);
    expect(await engine.store.placements.get("hbi/host", "pending-host-5")).toBeDefined();
    await call(engine.client, "deleteResource", { reference: { ...host("pending-host-5"), reporter: { type: "HBI" } } }, reporterOf("pending-a"));
    expect(await engine.store.placements.get("hbi/host", "pending-host-5")).toBeUndefined();
    await createWorkspace(orgA, workspaceId);
    expect(await canView("alice", "pending-host-5")).toBe(false);
    const again = await rejection(call(engine.client, "deleteResource", { reference: host("pending-host-5") }, reporterOf("pending-a")));
    expect(again.code).toBe(status.NOT_FOUND);
  });

  it("keeps each tenant's held report its own: another tenant cannot replace, drop, read or infer it", async () => {
    const mine = randomUUID();
    await call(engine.client, "reportResource", report("pending-host-6", mine), reporterOf("pending-a"));
    const held = await engine.store.placements.get("hbi/host", "pending-host-6", "pending-a");
    expect(held).toMatchObject({ workspaceId: mine, reporterOrg: "pending-a" });

    // B's delete of A's held report is refused exactly as one of an id nobody reported, and changes nothing.
    const head = await engine.store.feed.headRevision();
    const foreign = await rejection(call(engine.client, "deleteResource", { reference: host("pending-host-6") }, reporterOf("pending-b")));
    const never = await rejection(call(engine.client, "deleteResource", { reference: host("pending-never-6") }, reporterOf("pending-b")));
    expect([foreign.code, foreign.details.replace("pending-host-6", "pending-never-6")]).toEqual([never.code, never.details]);
    expect(await engine.store.feed.headRevision()).toBe(head);
    expect(await engine.store.placements.get("hbi/host", "pending-host-6", "pending-a")).toEqual(held);

    // B's report of the same id into a workspace of its own to come answers as one of a fresh id
    // and is held apart: A's report keeps its workspace and time.
    const theirs = randomUUID();
    const same = await call(engine.client, "reportResource", report("pending-host-6", theirs), reporterOf("pending-b"));
    const fresh = await call(engine.client, "reportResource", report("pending-fresh-6", randomUUID()), reporterOf("pending-b"));
    expect(same).toEqual(fresh);
    expect(await engine.store.placements.get("hbi/host", "pending-host-6", "pending-a")).toEqual(held);
    expect(await engine.store.placements.get("hbi/host", "pending-host-6", "pending-b")).toMatchObject({ workspaceId: theirs });
    // Dropping its own held report leaves A's.
    await call(engine.client, "deleteResource", { reference: host("pending-host-6") }, reporterOf("pending-b"));
    expect(await engine.store.placements.get("hbi/host", "pending-host-6", "pending-b")).toBeUndefined();
    expect(await engine.store.placements.get("hbi/host", "pending-host-6", "pending-a")).toEqual(held);

    // A's report is placed in A's workspace when it appears; B's workspace never receives the host.
    await call(engine.client, "reportResource", report("pending-host-6", theirs), reporterOf("pending-b"));
    await createWorkspace(orgA, mine);
    await createWorkspace(orgB, theirs);
    expect(await canView("alice", "pending-host-6")).toBe(true);
    expect(await canView("bob", "pending-host-6")).toBe(false);
    expect(await engine.store.relationships.read("pending-b", { resourceType: "hbi/host", resourceId: "pending-host-6" })).toEqual([]);
    expect(await engine.store.placements.get("hbi/host", "pending-host-6")).toBeUndefined();
  });

  it("rejects a type the schema cannot place, holding nothing", async () => {
    const error = await rejection(call(engine.client, "reportResource", { ...report("pending-w", randomUUID()), type: "widget" }));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(await engine.store.placements.get("hbi/widget", "pending-w")).toBeUndefined();
  });
});
