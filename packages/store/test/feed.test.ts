// Change feed, snapshots, revisions in commit order, reconnects, tokens and migrations.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError, openStore, tupleKey, type Change, type Relationship, type Store } from "../src/index.js";
import { dropSchema, openTestStore, randomSchemaName, testBackends } from "../src/testing.js";

const backends = await testBackends();

async function allTuples(store: Store): Promise<Set<string>> {
  const snap = await store.feed.snapshot({ batchSize: 1000 });
  const out = new Set<string>();
  for await (const batch of snap.batches) for (const r of batch) out.add(tupleKey(r));
  return out;
}

function applyChanges(state: Set<string>, changes: Change[]): void {
  for (const c of changes) {
    for (const r of c.deleted) state.delete(tupleKey(r));
    for (const r of c.touched) state.add(tupleKey(r));
  }
}

const until = async (cond: () => boolean, timeoutMs = 10_000) => {
  while (!cond()) {
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.each(backends)("change feed on $name", (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 50 });
  });
  afterAll(async () => {
    await store?.close();
  });

  it("concurrent writers: revisions are contiguous in commit order and a live follower misses nothing", async () => {
    const orgs = ["cw1", "cw2", "cw3", "cw4", "cw5", "cw6"];
    for (const o of orgs) await store.tenants.bootstrap(o);
    const start = await store.feed.headRevision();
    const seen: Change[] = [];
    const follower = store.feed.follow(
      start,
      (changes) => {
        seen.push(...changes);
      },
      { pollIntervalMs: 5 },
    );
    // Different tenants do not share the tenant lock, so these really run concurrently on pg.
    const perWriter = 15;
    const written = await Promise.all(
      orgs.map(async (org, i) => {
        const revs: number[] = [];
        for (let n = 0; n < perWriter; n++) {
          const r: Relationship = { resourceType: "hbi/host", resourceId: `h${i}_${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: `w${i}` };
          revs.push((await store.relationships.write(org, { touch: [r] })).revision);
        }
        return revs;
      }),
    );
    const head = await store.feed.headRevision();
    expect(head).toBe(start + orgs.length * perWriter);
    await until(() => follower.revision === head);
    await follower.stop();
    expect(seen.map((c) => c.revision)).toEqual(Array.from({ length: head - start }, (_, i) => start + 1 + i));
    expect(new Set(written.flat()).size).toBe(orgs.length * perWriter);
    expect(seen.every((c) => c.touched.length === 1 && c.deleted.length === 0)).toBe(true);
  });

  it("snapshot at R plus every change after R equals the state at head, with writes racing the load", async () => {
    await store.tenants.bootstrap("snap");
    const ws = (await store.workspaces.create("snap", { name: "S" })).value;
    for (let i = 0; i < 20; i++) await store.hosts.report("snap", `sh${i}`, ws.id);
    const snap = await store.feed.snapshot({ batchSize: 7 });
    const state = new Set<string>();
    const racing = (async () => {
      // On PGlite these wait for the snapshot transaction; on pg they commit during the load.
      for (let i = 0; i < 10; i++) await store.hosts.delete("snap", `sh${i}`);
      await store.workspaces.create("snap", { name: "T" });
    })();
    let batches = 0;
    for await (const batch of snap.batches) {
      batches++;
      expect(batch.length).toBeLessThanOrEqual(7);
      for (const r of batch) state.add(tupleKey(r));
    }
    expect(batches).toBeGreaterThan(1);
    await racing;
    const changes = await store.feed.changesSince(snap.revision, 10_000);
    expect(changes[0]!.revision).toBe(snap.revision + 1);
    applyChanges(state, changes);
    expect(state).toEqual(await allTuples(store));
  });

  it("a change's tuples come back exactly as written: subject relations, expiries, every id character", async () => {
    await store.tenants.bootstrap("shapes");
    const touch: Relationship[] = [
      { resourceType: "hbi/host", resourceId: "h-1", relation: "t_workspace", subjectType: "rbac/workspace", subjectId: "w-1" },
      { resourceType: "rbac/role_binding", resourceId: "b/1|x=y+z_", relation: "t_subject", subjectType: "rbac/group", subjectId: "g-1", subjectRelation: "member" },
      { resourceType: "rbac/role_binding", resourceId: "b-2", relation: "t_subject", subjectType: "rbac/principal", subjectId: "redhat/u1", expiresAt: 4_102_444_800_000 },
      { resourceType: "rbac/role_binding", resourceId: "b-3", relation: "t_subject", subjectType: "rbac/group", subjectId: "g-2", subjectRelation: "member", expiresAt: 4_102_444_800_001 },
      { resourceType: "rbac/role", resourceId: "r-1", relation: "t_inventory_hosts_read", subjectType: "rbac/principal", subjectId: "*" },
    ];
    const from = await store.feed.headRevision();
    const { revision } = await store.relationships.write("shapes", { touch });
    await store.relationships.write("shapes", { delete: [touch[0]!, touch[1]!] });
    const [added, removed] = await store.feed.changesSince(from, 2);
    expect(added!.revision).toBe(revision);
    expect(added!.touched.map(tupleKey).sort()).toEqual(touch.map(tupleKey).sort());
    expect(added!.touched.find((r) => r.resourceId === "b-3")).toEqual(touch[3]);
    expect(added!.deleted).toEqual([]);
    expect(removed!.deleted.map(tupleKey).sort()).toEqual([touch[0]!, touch[1]!].map(tupleKey).sort());
  });

  it("a per-tenant snapshot holds that tenant's and public tuples only", async () => {
    await store.tenants.bootstrap("iso1");
    await store.tenants.bootstrap("iso2");
    await store.roles.seedSystemRoles([{ name: "Viewer", access: [{ permission: "inventory:hosts:read" }] }]);
    const snap = await store.feed.snapshot({ orgId: "iso1" });
    const tuples: Relationship[] = [];
    for await (const b of snap.batches) tuples.push(...b);
    expect(tuples.some((t) => t.resourceId === "redhat/iso1" || t.subjectId === "redhat/iso1")).toBe(true);
    expect(tuples.some((t) => t.resourceId === "redhat/iso2" || t.subjectId === "redhat/iso2")).toBe(false);
    expect(tuples.some((t) => t.relation === "t_inventory_hosts_read")).toBe(true);
  });

  it("follow redelivers a batch whose handler threw (and reports when it reads again), and waitForRevision times out with a typed error", async () => {
    await store.tenants.bootstrap("retry");
    const from = await store.feed.headRevision();
    let calls = 0;
    let resumed = 0;
    const got: number[] = [];
    const errors: unknown[] = [];
    const f = store.feed.follow(
      from,
      (changes) => {
        calls++;
        if (calls === 1) throw new Error("handler failed once");
        got.push(...changes.map((c) => c.revision));
      },
      { pollIntervalMs: 10, onError: (e) => errors.push(e), onResumed: () => resumed++ },
    );
    const { revision } = await store.workspaces.create("retry", { name: "R" });
    await until(() => f.revision === revision);
    await f.stop();
    expect(got).toEqual([revision]);
    expect(errors).toHaveLength(1);
    // The read after the failure says the follower is healthy again, once.
    expect(resumed).toBe(1);
    expect(await store.feed.waitForRevision(revision, 100)).toBeGreaterThanOrEqual(revision);
    const e = await store.feed.waitForRevision(revision + 1000, 30).catch((x: unknown) => x);
    expect(isStoreError(e, "timeout")).toBe(true);
  });

  it("tokens round-trip; malformed and foreign tokens are typed errors", async () => {
    const token = store.tokens.encode(42);
    expect(token.startsWith("GH1.")).toBe(true);
    expect(store.tokens.decode(token)).toBe(42);
    for (const bad of [
      "",
      "garbage",
      "GH1.",
      "GH1.!!!",
      `GH1.${Buffer.from('{"v":2,"r":"1","s":"x"}').toString("base64url")}`,
      `GH1.${Buffer.from('{"v":1,"r":"-1","s":"x"}').toString("base64url")}`,
    ]) {
      const e = (() => {
        try {
          store.tokens.decode(bad);
        } catch (x) {
          return x;
        }
        return undefined;
      })();
      expect(isStoreError(e, "malformed-token"), bad).toBe(true);
    }
    const foreign = `GH1.${Buffer.from(JSON.stringify({ v: 1, r: "5", s: "another-store" })).toString("base64url")}`;
    expect(() => store.tokens.decode(foreign)).toThrow(expect.objectContaining({ code: "foreign-token" }));
  });

  if (backend.name === "pg") {
    it("a follower survives a dropped LISTEN connection and resumes from its last revision", async () => {
      const url = backend.databaseUrl;
      const schema = (store as Store & { schema: string }).schema;
      await store.tenants.bootstrap("drop");
      const from = await store.feed.headRevision();
      const got: number[] = [];
      const errors: unknown[] = [];
      // Long polling interval: delivery after the drop must come from the re-established LISTEN.
      const f = store.feed.follow(from, (changes) => void got.push(...changes.map((c) => c.revision)), { pollIntervalMs: 60_000, onError: (e) => errors.push(e) });
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const listeners = async () => (await admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [`gatehouse-follower:${schema}`])).rows as { pid: number }[];
        const first = await store.workspaces.create("drop", { name: "before" });
        await until(() => got.includes(first.revision));
        const pids = await listeners();
        expect(pids).toHaveLength(1);
        await admin.query("SELECT pg_terminate_backend($1)", [pids[0]!.pid]);
        await until(() => errors.length > 0);
        // Wait for the follower to listen again on a new connection.
        let newPid: number | undefined;
        while (!newPid) {
          const rows = await listeners();
          newPid = rows.find((r) => r.pid !== pids[0]!.pid)?.pid;
          if (!newPid) await new Promise((r) => setTimeout(r, 20));
        }
        expect(newPid).toBeDefined();
        // Another store instance on the same schema writes: only a NOTIFY can wake the follower.
        const writer = await openStore({ databaseUrl: url, schema });
        const second = await writer.workspaces.create("drop", { name: "after" });
        await writer.close();
        await until(() => got.includes(second.revision));
        expect(got).toEqual(Array.from({ length: second.revision - from }, (_, i) => from + 1 + i));
      } finally {
        await admin.end();
        await f.stop();
      }
    });

    it("two processes migrating the same empty schema together apply each migration once", async () => {
      const schema = randomSchemaName();
      try {
        const [a, b] = await Promise.all([openStore({ databaseUrl: backend.databaseUrl, schema }), openStore({ databaseUrl: backend.databaseUrl, schema })]);
        expect(a.storeId).toBe(b.storeId);
        const [x, y] = await Promise.all([a.tenants.bootstrap("same"), b.tenants.bootstrap("same")]);
        expect(x.value.rootWorkspaceId).toBe(y.value.rootWorkspaceId);
        await a.close();
        await b.close();
      } finally {
        await dropSchema(backend.databaseUrl, schema);
      }
    });
  } else {
    it("reopening a PGlite data directory keeps the store id and the data", async () => {
      const dir = await mkdtemp(join(tmpdir(), "gh-store-"));
      try {
        const a = await openStore({ dataDir: dir });
        const t = (await a.tenants.bootstrap("persist")).value;
        const id = a.storeId;
        await a.close();
        const b = await openStore({ dataDir: dir });
        expect(b.storeId).toBe(id);
        expect((await b.tenants.get("persist")).rootWorkspaceId).toBe(t.rootWorkspaceId);
        await b.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
