// KesselTupleService (kessel.relations.v1beta1) through a real grpc-js client: what insights-rbac's
// replicator sends (relations without the `t_` prefix), upsert and fencing semantics, filters,
// bad input (nothing changed) and the partition that keeps Gatehouse tenants out of reach.
import { randomUUID } from "node:crypto";
import { credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { Allowed, inventoryTuples, relations, WriteVisibility } from "@gatehouse/proto";
import type { Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, host, principal, rejection, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;
let tuples: relations.KesselTupleServiceClient;
let gatehouseTenant: Tenant;

type Unary = "createTuples" | "deleteTuples" | "acquireLock";
function rpc<Res>(method: Unary, request: object): Promise<Res> {
  const fn = tuples[method] as unknown as (r: object, cb: (e: ServiceError | null, res: Res) => void) => void;
  return new Promise((resolve, reject) => fn.call(tuples, request, (error, response) => (error ? reject(error) : resolve(response))));
}
const create = (request: Partial<relations.CreateTuplesRequest>) => rpc<relations.CreateTuplesResponse>("createTuples", relations.CreateTuplesRequest.fromPartial(request));
const remove = (request: Partial<relations.DeleteTuplesRequest>) => rpc<relations.DeleteTuplesResponse>("deleteTuples", relations.DeleteTuplesRequest.fromPartial(request));
const lock = (lockId: string) => rpc<relations.AcquireLockResponse>("acquireLock", { lockId });

async function read(request: Partial<relations.ReadTuplesRequest>): Promise<relations.ReadTuplesResponse[]> {
  const out: relations.ReadTuplesResponse[] = [];
  for await (const item of tuples.readTuples(relations.ReadTuplesRequest.fromPartial(request))) out.push(item as relations.ReadTuplesResponse);
  return out;
}

const ref = (namespace: string, name: string, id: string) => ({ type: { namespace, name }, id });
const tuple = (resource: ReturnType<typeof ref>, relation: string, subject: ReturnType<typeof ref>, subjectRelation?: string): relations.Relationship => ({
  resource,
  relation,
  subject: { subject, ...(subjectRelation !== undefined ? { relation: subjectRelation } : {}) },
});

/** What insights-rbac replicates for "alice may read hosts in workspace ws of org repl-org". */
function replicatedGrant(ws: string, binding: string): relations.Relationship[] {
  return [
    tuple(ref("rbac", "workspace", ws), "parent", ref("rbac", "tenant", "redhat/repl-org")),
    tuple(ref("rbac", "role", `role-${ws}`), "inventory_hosts_read", ref("rbac", "principal", "*")),
    tuple(ref("rbac", "role_binding", binding), "role", ref("rbac", "role", `role-${ws}`)),
    tuple(ref("rbac", "role_binding", binding), "subject", ref("rbac", "principal", "redhat/alice")),
    tuple(ref("rbac", "workspace", ws), "binding", ref("rbac", "role_binding", binding)),
  ];
}

const aliceViews = async (ws: string): Promise<boolean> =>
  (await call(engine.client, "checkForUpdate", { object: workspace(ws), relation: "inventory_host_view", subject: { resource: principal("alice") } })).allowed === Allowed.ALLOWED_TRUE;

async function listSubjects(running: RunningEngine, request: object): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of running.client.streamedListSubjects(request as never)) out.push(item);
  return out;
}

const workspaceTuples = (ws: string) => read({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws } });

beforeAll(async () => {
  engine = await startEngine();
  gatehouseTenant = (await engine.store.tenants.bootstrap("gatehouse-org")).value;
  await engine.store.roles.seedSystemRoles([{ name: "Replication target", platform_default: true, access: [{ permission: "inventory:hosts:read" }] }]);
  tuples = new relations.KesselTupleServiceClient(`127.0.0.1:${engine.port}`, credentials.createInsecure());
});

afterAll(async () => {
  tuples?.close();
  await engine?.close();
});

describe("KesselTupleService", () => {
  it("CreateTuples writes replicated tuples that checks see; without upsert an existing tuple is ALREADY_EXISTS and nothing changes", async () => {
    const ws = randomUUID();
    const written = await create({ tuples: replicatedGrant(ws, `b-${ws}`) });
    expect(written.consistencyToken?.token).toBeTruthy();
    expect(await aliceViews(ws)).toBe(true);

    const extra = tuple(ref("rbac", "workspace", ws), "binding", ref("rbac", "role_binding", `other-${ws}`));
    const again = await rejection(create({ tuples: [extra, ...replicatedGrant(ws, `b-${ws}`)] }));
    expect(again.code).toBe(status.ALREADY_EXISTS);
    expect(again.details).toMatch(/^error creating tuples: error writing relationships to SpiceDB: could not CREATE relationship `rbac\/\w+:[^`]+`, as it already existed/);
    expect((await workspaceTuples(ws)).map((t) => t.tuple?.relation).sort()).toEqual(["binding", "parent"]);

    // upsert: touch semantics, idempotent.
    await create({ upsert: true, tuples: [extra, ...replicatedGrant(ws, `b-${ws}`)] });
    await create({ upsert: true, tuples: [extra] });
    expect(await workspaceTuples(ws)).toHaveLength(3);
  });

  it("ReadTuples filters, pages with continuation tokens and answers relations without the stored prefix", async () => {
    const ws = randomUUID();
    await create({ tuples: replicatedGrant(ws, `b-${ws}`) });
    const bindings = await read({ filter: { resourceNamespace: "rbac", resourceType: "role_binding", resourceId: `b-${ws}` } });
    expect(bindings.map((b) => b.tuple?.relation)).toEqual(["role", "subject"]);
    expect(bindings[0]?.tuple?.resource?.type).toEqual({ namespace: "rbac", name: "role_binding" });
    expect(bindings[0]?.consistencyToken?.token).toBeTruthy();

    const bySubject = await read({ filter: { relation: "subject", subjectFilter: { subjectNamespace: "rbac", subjectType: "principal", subjectId: "redhat/alice" } } });
    expect(bySubject.map((b) => b.tuple?.resource?.id)).toContain(`b-${ws}`);

    const first = await read({ filter: { resourceNamespace: "rbac", resourceType: "role_binding", resourceId: `b-${ws}` }, pagination: { limit: 1 } });
    expect(first).toHaveLength(1);
    const rest = await read({
      filter: { resourceNamespace: "rbac", resourceType: "role_binding", resourceId: `b-${ws}` },
      pagination: { limit: 10, continuationToken: first[0]!.pagination!.continuationToken },
    });
    expect(rest.map((r) => r.tuple?.relation)).toEqual(["subject"]);
  });

  it("DeleteTuples removes what the filter matches", async () => {
    const ws = randomUUID();
    await create({ tuples: replicatedGrant(ws, `b-${ws}`) });
    expect(await aliceViews(ws)).toBe(true);
    await remove({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws, relation: "binding" } });
    expect(await aliceViews(ws)).toBe(false);
    expect((await workspaceTuples(ws)).map((t) => t.tuple?.relation)).toEqual(["parent"]);
  });

  it("AcquireLock fences writes: a superseded token is FAILED_PRECONDITION and changes nothing", async () => {
    const ws = randomUUID();
    const first = (await lock("replicator")).lockToken;
    await create({ tuples: replicatedGrant(ws, `b-${ws}`), fencingCheck: { lockId: "replicator", lockToken: first } });
    const second = (await lock("replicator")).lockToken;
    expect(second).not.toBe(first);

    const extra = tuple(ref("rbac", "workspace", ws), "binding", ref("rbac", "role_binding", `late-${ws}`));
    const stale = await rejection(create({ tuples: [extra], fencingCheck: { lockId: "replicator", lockToken: first } }));
    expect(stale.code).toBe(status.FAILED_PRECONDITION);
    expect(stale.details).toContain("unable to satisfy write precondition");
    const staleDelete = await rejection(remove({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws }, fencingCheck: { lockId: "replicator", lockToken: first } }));
    expect(staleDelete.code).toBe(status.FAILED_PRECONDITION);
    expect(await workspaceTuples(ws)).toHaveLength(2);

    await create({ tuples: [extra], fencingCheck: { lockId: "replicator", lockToken: second } });
    await remove({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws }, fencingCheck: { lockId: "replicator", lockToken: second } });
    expect(await workspaceTuples(ws)).toEqual([]);
  });

  it("refuses a lock id no relationship may carry, writing nothing, so the engine keeps following the feed", async () => {
    const head = await engine.store.feed.headRevision();
    for (const lockId of ["\u{1F600}", "a b", "*"]) {
      const refused = await rejection(lock(lockId));
      expect(refused.code, lockId).toBe(status.INVALID_ARGUMENT);
      expect(refused.details).toMatch(/lock.id/i);
    }
    expect(await engine.store.feed.headRevision()).toBe(head);
    // A later replicated grant is applied: nothing poisoned the change feed.
    const ws = randomUUID();
    await create({ tuples: replicatedGrant(ws, `b-${ws}`) });
    expect(await aliceViews(ws)).toBe(true);
  });

  it("rejects bad input with INVALID_ARGUMENT and writes nothing", async () => {
    const ws = randomUUID();
    const good = replicatedGrant(ws, `b-${ws}`);
    const noRelation = await rejection(create({ tuples: [...good, { ...good[0]!, relation: "" }] }));
    expect(noRelation.code).toBe(status.INVALID_ARGUMENT);
    expect(noRelation.details).toContain("tuples[5].relation");
    const noSubject = await rejection(create({ tuples: [{ resource: ref("rbac", "workspace", ws), relation: "parent" }] }));
    expect(noSubject.details).toContain("tuples[0].subject");
    const badType = await rejection(create({ tuples: [tuple(ref("rbac", "", ws), "parent", ref("rbac", "tenant", "redhat/x"))] }));
    expect(badType.details).toContain("tuples[0].resource.type.name");
    expect(await workspaceTuples(ws)).toEqual([]);

    const halfType = await rejection(read({ filter: { resourceNamespace: "rbac" } }));
    expect(halfType.code).toBe(status.INVALID_ARGUMENT);
    expect(halfType.details).toBe("due to a spicedb limitation, if resource namespace is specified then resource type must also be specified");
    const halfSubject = await rejection(remove({ filter: { resourceNamespace: "rbac", resourceType: "workspace", subjectFilter: { subjectType: "tenant" } } }));
    expect(halfSubject.details).toBe("due to a spicedb limitation, if subject type is specified in subjectFilter then subject namespace must also be specified");
    expect((await rejection(read({}))).details).toContain("filter");
    expect((await rejection(remove({ filter: {} }))).code).toBe(status.INVALID_ARGUMENT);
    expect((await rejection(lock(""))).details).toContain("lock_id");
    const badCursor = await rejection(read({ filter: { resourceNamespace: "rbac", resourceType: "workspace" }, pagination: { limit: 5, continuationToken: "garbage" } }));
    expect(badCursor.code).toBe(status.INVALID_ARGUMENT);
  });

  it("keeps Gatehouse tenants out of reach: no tuple on their objects, deletes and reads see only replicated tuples", async () => {
    const managed = gatehouseTenant.defaultWorkspaceId;
    const attach = await rejection(create({ tuples: [tuple(ref("rbac", "workspace", managed), "binding", ref("rbac", "role_binding", "intruder"))] }));
    expect(attach.code).toBe(status.PERMISSION_DENIED);
    expect(await workspaceTuples(managed)).toEqual([]);
    await remove({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: managed } });
    const own = await engine.store.relationships.read("gatehouse-org", { resourceType: "rbac/workspace", resourceId: managed });
    expect(own.length).toBeGreaterThan(0);
  });

  it("never lets replicated tuples reach Gatehouse's objects: platform, tenants, seeded roles, workspaces, groups (refused whole, nothing written)", async () => {
    const seeded = (await engine.store.roles.list(gatehouseTenant.orgId, { name: "Replication target", kinds: ["seeded"] })).data[0]!;
    const x = randomUUID();
    // A binding of the replicator's own: a role it defines, granted to an outsider.
    const ownBinding = [
      tuple(ref("rbac", "role", `r-${x}`), "inventory_hosts_write", ref("rbac", "principal", "*")),
      tuple(ref("rbac", "role_binding", `b-${x}`), "role", ref("rbac", "role", `r-${x}`)),
      tuple(ref("rbac", "role_binding", `b-${x}`), "subject", ref("rbac", "principal", "redhat/outsider")),
    ];
    const escapes: Record<string, relations.Relationship[]> = {
      "a binding on the platform": [...ownBinding, tuple(ref("rbac", "platform", "local"), "binding", ref("rbac", "role_binding", `b-${x}`))],
      "a binding on a Gatehouse tenant": [...ownBinding, tuple(ref("rbac", "tenant", gatehouseTenant.tenantId), "binding", ref("rbac", "role_binding", `b-${x}`))],
      "a binding on a tenant Gatehouse may serve later": [...ownBinding, tuple(ref("rbac", "tenant", "redhat/not-yet-served"), "binding", ref("rbac", "role_binding", `b-${x}`))],
      "a binding on a tenant's workspace": [...ownBinding, tuple(ref("rbac", "workspace", gatehouseTenant.defaultWorkspaceId), "binding", ref("rbac", "role_binding", `b-${x}`))],
      "a permission on a seeded role": [tuple(ref("rbac", "role", seeded.id), "inventory_hosts_write", ref("rbac", "principal", "*"))],
      "a workspace hung under a tenant's workspace": [tuple(ref("rbac", "workspace", `w-${x}`), "parent", ref("rbac", "workspace", gatehouseTenant.defaultWorkspaceId))],
      "a workspace hung under a Gatehouse tenant": [tuple(ref("rbac", "workspace", `w-${x}`), "parent", ref("rbac", "tenant", gatehouseTenant.tenantId))],
      "a binding to a tenant's group": [...ownBinding, tuple(ref("rbac", "role_binding", `b-${x}`), "subject", ref("rbac", "group", gatehouseTenant.platformDefaultGroupId), "member")],
      "a binding of a seeded role": [tuple(ref("rbac", "role_binding", `b-${x}`), "role", ref("rbac", "role", seeded.id))],
      "a member in a tenant's group": [tuple(ref("rbac", "group", gatehouseTenant.adminDefaultGroupId), "member", ref("rbac", "principal", "redhat/outsider"))],
    };
    for (const [name, attempt] of Object.entries(escapes)) {
      for (const upsert of [false, true]) {
        const refused = await rejection(create({ upsert, tuples: attempt }));
        expect([name, refused.code]).toEqual([name, status.PERMISSION_DENIED]);
        expect(refused.details).toMatch(/^tuples\[\d+\] names an object Gatehouse manages/);
      }
    }
    // All or nothing: not even the replicator's own tuples of a refused call were written.
    expect(await read({ filter: { resourceNamespace: "rbac", resourceType: "role_binding", resourceId: `b-${x}` } })).toEqual([]);
    const outsider = { subject: { resource: principal("outsider") } };
    const onTenant = await call(engine.client, "checkForUpdate", { object: workspace(gatehouseTenant.defaultWorkspaceId), relation: "inventory_host_update", ...outsider });
    expect(onTenant.allowed).toBe(Allowed.ALLOWED_FALSE);
    const tenantUser = await call(engine.client, "checkForUpdate", {
      object: workspace(gatehouseTenant.defaultWorkspaceId),
      relation: "inventory_host_update",
      subject: { resource: principal("plain-user") },
    });
    expect(tenantUser.allowed).toBe(Allowed.ALLOWED_FALSE);
  });

  it("keeps lock fencing AcquireLock's alone: lock tuples cannot be written, deleted or read through the tuple calls", async () => {
    const lockId = `lock-${randomUUID()}`;
    const current = (await lock(lockId)).lockToken;
    const forged = await rejection(create({ upsert: true, tuples: [tuple(ref("kessel", "lock", lockId), "version", ref("kessel", "lockversion", "forged"))] }));
    expect(forged.code).toBe(status.PERMISSION_DENIED);
    const ws = randomUUID();
    const fenced = await rejection(create({ tuples: replicatedGrant(ws, `b-${ws}`), fencingCheck: { lockId, lockToken: "forged" } }));
    expect(fenced.code).toBe(status.FAILED_PRECONDITION);
    expect(await workspaceTuples(ws)).toEqual([]);

    expect(await read({ filter: { resourceNamespace: "kessel", resourceType: "lock", resourceId: lockId } })).toEqual([]);
    const everything = await read({ filter: { relation: "version" } });
    expect(everything.filter((t) => t.tuple?.resource?.type?.namespace === "kessel")).toEqual([]);
    // A delete cannot drop the lock either: its token still fences.
    await remove({ filter: { resourceNamespace: "kessel", resourceType: "lock", resourceId: lockId } });
    await remove({ filter: { relation: "version" } });
    await create({ tuples: replicatedGrant(ws, `b-${ws}`), fencingCheck: { lockId, lockToken: current } });
    expect(await workspaceTuples(ws)).toHaveLength(2);

    // Nor through the inventory service's lookups and checks: lock types are not its to answer.
    const lockRef = { resourceType: "lock", resourceId: lockId, reporter: { type: "kessel" } };
    const listed = await rejection(listSubjects(engine, { resource: lockRef, relation: "version", subjectType: { resourceType: "lockversion", reporterType: "kessel" } }));
    expect(listed.code).toBe(status.INVALID_ARGUMENT);
    expect(listed.details).not.toContain(current);
    const checked = await rejection(
      call(engine.client, "checkForUpdate", { object: lockRef, relation: "version", subject: { resource: { resourceType: "lockversion", resourceId: current, reporter: { type: "kessel" } } } }),
    );
    expect(checked.code).toBe(status.INVALID_ARGUMENT);
  });

  it("places a host reported into a workspace that replication creates later, in the reporter's org", async () => {
    const ws = randomUUID();
    const reporter = new Metadata();
    reporter.set("x-rh-identity", encodeIdentityHeader({ orgId: "repl-org", userId: "hbi", username: "hbi" }));
    await call(
      engine.client,
      "reportResource",
      {
        type: "host",
        reporterType: "hbi",
        reporterInstanceId: "hbi-1",
        representations: { metadata: { localResourceId: `h-${ws}`, apiHref: "https://hbi/h" }, common: { workspace_id: ws } },
        writeVisibility: WriteVisibility.IMMEDIATE,
      },
      reporter,
    );
    await create({ tuples: replicatedGrant(ws, `b-${ws}`) });
    const view = await call(engine.client, "checkForUpdate", { object: host(`h-${ws}`), relation: "view", subject: { resource: principal("alice") } });
    expect(view.allowed).toBe(Allowed.ALLOWED_TRUE);
  });

  it("bounds every string at validation and never echoes an oversized one", async () => {
    const huge = "x".repeat(100_000);
    const cases: Array<() => Promise<unknown>> = [
      () => create({ tuples: [tuple(ref("rbac", "workspace", huge), "parent", ref("rbac", "tenant", "redhat/repl-org"))] }),
      () => create({ tuples: [tuple(ref("rbac", huge, "ws-1"), "parent", ref("rbac", "tenant", "redhat/repl-org"))] }),
      () => create({ tuples: [tuple(ref("rbac", "workspace", "ws-1"), huge, ref("rbac", "tenant", "redhat/repl-org"))] }),
      () => create({ tuples: [tuple(ref("rbac", "workspace", "ws-1"), "parent", ref("rbac", "tenant", "redhat/repl-org"), huge)] }),
      () => remove({ filter: { resourceId: huge } }),
      () => remove({ filter: { resourceNamespace: "rbac", resourceType: "workspace", subjectFilter: { subjectId: huge } } }),
      () => read({ filter: { relation: huge } }),
      () => read({ filter: { resourceId: "ws-1" }, pagination: { limit: 1, continuationToken: huge } }),
    ];
    for (const attempt of cases) {
      const error = await rejection(attempt());
      expect(error.code).toBe(status.INVALID_ARGUMENT);
      expect(error.details.length).toBeLessThan(1024);
      expect(error.details).not.toContain("xxxxxxxxxx");
    }
    expect(await workspaceTuples("ws-1")).toEqual([]);
  });
});

describe("kessel.inventory.v1beta2.KesselTupleService (inventory-api's name for the same RPCs)", () => {
  let v1beta2: inventoryTuples.KesselTupleServiceClient;
  beforeAll(() => {
    v1beta2 = new inventoryTuples.KesselTupleServiceClient(`127.0.0.1:${engine.port}`, credentials.createInsecure());
  });
  afterAll(() => v1beta2?.close());

  function v1beta2Call<Res>(method: Unary, request: object): Promise<Res> {
    const fn = v1beta2[method] as unknown as (r: object, cb: (e: ServiceError | null, res: Res) => void) => void;
    return new Promise((resolve, reject) => fn.call(v1beta2, request, (error, response) => (error ? reject(error) : resolve(response))));
  }
  async function v1beta2Read(request: Partial<inventoryTuples.ReadTuplesRequest>): Promise<inventoryTuples.ReadTuplesResponse[]> {
    const out: inventoryTuples.ReadTuplesResponse[] = [];
    for await (const item of v1beta2.readTuples(inventoryTuples.ReadTuplesRequest.fromPartial(request))) out.push(item as inventoryTuples.ReadTuplesResponse);
    return out;
  }

  it("writes, reads, fences and deletes the same tuples as kessel.relations.v1beta1 (one implementation)", async () => {
    const ws = randomUUID();
    const written = await v1beta2Call<inventoryTuples.CreateTuplesResponse>("createTuples", inventoryTuples.CreateTuplesRequest.fromPartial({ tuples: replicatedGrant(ws, `b-${ws}`) }));
    // Field 1 in inventory-api's response (2 in relations-api's): decoded, the token is there.
    expect(written.consistencyToken?.token).toBeTruthy();
    expect(await aliceViews(ws)).toBe(true);

    const viaInventory = await v1beta2Read({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws } });
    const viaRelations = await workspaceTuples(ws);
    expect(viaInventory.map((r) => r.tuple)).toEqual(viaRelations.map((r) => r.tuple));
    expect(viaInventory).toHaveLength(2);

    // The same rules: an existing tuple without upsert, and a fenced write with a superseded token.
    expect((await rejection(v1beta2Call("createTuples", { tuples: replicatedGrant(ws, `b-${ws}`) }))).code).toBe(status.ALREADY_EXISTS);
    const first = await v1beta2Call<inventoryTuples.AcquireLockResponse>("acquireLock", { lockId: `lock-${ws}` });
    await lock(`lock-${ws}`);
    const fenced = await rejection(
      v1beta2Call("deleteTuples", { filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws }, fencingCheck: { lockId: `lock-${ws}`, lockToken: first.lockToken } }),
    );
    expect(fenced.code).toBe(status.FAILED_PRECONDITION);
    expect(await workspaceTuples(ws)).toHaveLength(2);

    const deleted = await v1beta2Call<inventoryTuples.DeleteTuplesResponse>("deleteTuples", { filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: ws } });
    expect(deleted.consistencyToken?.token).toBeTruthy();
    expect(await workspaceTuples(ws)).toEqual([]);
  });

  it("refuses the same bad input with INVALID_ARGUMENT and writes nothing", async () => {
    const ws = randomUUID();
    const bad = await rejection(v1beta2Call("createTuples", { tuples: [tuple(ref("rbac", "workspace", ws), "", ref("rbac", "tenant", "redhat/repl-org"))] }));
    expect(bad.code).toBe(status.INVALID_ARGUMENT);
    expect((await rejection(v1beta2Call("deleteTuples", { filter: {} }))).code).toBe(status.INVALID_ARGUMENT);
    expect((await rejection(v1beta2Call("acquireLock", { lockId: "" }))).code).toBe(status.INVALID_ARGUMENT);
    expect(await workspaceTuples(ws)).toEqual([]);
  });
});
