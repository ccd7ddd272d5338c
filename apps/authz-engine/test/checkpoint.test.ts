// Graph checkpoints: a replica starting from the newest usable checkpoint and replaying the change
// feed after it ends up with exactly the graph (and answers) of a replica that read the snapshot;
// a corrupt, old-format, foreign or other-schema checkpoint is refused (logged, counted) and the
// start falls back to an older checkpoint or to the snapshot. On PGlite and on Postgres.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, compileSchema, formatRelationship, lookupResources, type Model } from "@gatehouse/evaluator";
import { Allowed } from "@gatehouse/proto";
import { compileRoleSchema } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";
import { openTestStore, testBackends, type TestStore } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineGraph } from "../src/graph/engine-graph.js";
import {
  databaseCheckpointStore,
  decodeCheckpoint,
  encodeCheckpoint,
  fileCheckpointStore,
  memoryCheckpointStore,
  schemaHash,
  type CheckpointRejection,
  type CheckpointStore,
} from "../src/graph/checkpoint.js";
import { storeGraphSource } from "../src/graph/store-source.js";
import { call, childWorkspace, hostIn, principal, readGrant, stageSchema, startEngine, workspace } from "./helpers.js";

// The engine compiles the role schema with its grant-expiration extension; checkpoints name that schema.
const model = compileRoleSchema(stageSchema);
const backends = await testBackends();

interface Started {
  engine: EngineGraph;
  snapshots: number;
  rejected: CheckpointRejection[];
}

async function start(store: TestStore, checkpoints?: CheckpointStore, useModel: Model = model): Promise<Started> {
  const source = storeGraphSource(store);
  const started: Started = { engine: undefined as unknown as EngineGraph, snapshots: 0, rejected: [] };
  const counted = { ...source, snapshot: (onBatch: Parameters<typeof source.snapshot>[0]) => (started.snapshots++, source.snapshot(onBatch)) };
  started.engine = new EngineGraph({
    model: useModel,
    source: counted,
    logger: createSilentLogger(),
    ...(checkpoints ? { checkpoints: { store: checkpoints, storeId: store.storeId, intervalMs: 0, onRejected: (r) => started.rejected.push(r) } } : {}),
  });
  await started.engine.load();
  await started.engine.waitFor(await store.feed.headRevision(), 5000);
  return started;
}

const contents = (engine: EngineGraph) => [...engine.graph.relationships()].map(formatRelationship).sort();

describe.each(backends)("graph checkpoints on $name", (backend) => {
  let store: TestStore;
  let reference: Started;
  const engines: EngineGraph[] = [];
  const users = ["alice", "bob", "carol", "dave"];

  const answers = (engine: EngineGraph) =>
    users.flatMap((user) => [
      lookupResources(engine.graph, "hbi/host", "view", { type: "rbac/principal", id: `redhat/${user}` }).join(","),
      ...["h1", "h2", "h3", "h4", "h5"].map((host) => check(engine.graph, { type: "hbi/host", id: host }, "view", { type: "rbac/principal", id: `redhat/${user}` })),
    ]);

  async function expectSameAsSnapshot(started: Started) {
    engines.push(started.engine);
    reference ??= await start(store);
    await reference.engine.waitFor(await store.feed.headRevision(), 5000);
    expect(contents(started.engine)).toEqual(contents(reference.engine));
    expect(answers(started.engine)).toEqual(answers(reference.engine));
    expect(started.engine.appliedRevision).toBe(reference.engine.appliedRevision);
  }

  beforeAll(async () => {
    store = await openTestStore(backend, { pollIntervalMs: 20 });
    const a = (await store.tenants.bootstrap("ckpt-a")).value;
    const b = (await store.tenants.bootstrap("ckpt-b")).value;
    await store.relationships.write("ckpt-a", {
      touch: [
        childWorkspace("ckpt-a-ws1", a.defaultWorkspaceId),
        ...readGrant(a.defaultWorkspaceId, "alice"),
        ...readGrant("ckpt-a-ws1", "bob"),
        hostIn("h1", "ckpt-a-ws1"),
        hostIn("h2", a.defaultWorkspaceId),
      ],
    });
    await store.relationships.write("ckpt-b", { touch: [...readGrant(b.defaultWorkspaceId, "carol"), hostIn("h3", b.defaultWorkspaceId)] });
  });

  afterAll(async () => {
    for (const engine of engines) await engine.close();
    await reference?.engine.close();
    await store?.close();
  });

  it("starts from the checkpoint and replays the feed after it, equal to a fresh snapshot", async () => {
    const checkpoints = memoryCheckpointStore();
    const writer = await start(store, checkpoints);
    engines.push(writer.engine);
    expect(writer.snapshots).toBe(1);
    await writer.engine.writeCheckpoint();
    const [ref] = await checkpoints.list();
    expect(ref!.revision).toBe(writer.engine.appliedRevision);
    // Changes after the checkpoint: adds, a revoke, a move.
    const a = await store.tenants.get("ckpt-a");
    await store.relationships.write("ckpt-a", { touch: [hostIn("h4", "ckpt-a-ws1"), ...readGrant("ckpt-a-ws1", "dave")] });
    await store.relationships.write("ckpt-a", { delete: [readGrant("ckpt-a-ws1", "bob").find((r) => r.relation === "t_subject")!] });
    await store.relationships.write("ckpt-a", { delete: [hostIn("h2", a.defaultWorkspaceId)], touch: [hostIn("h2", "ckpt-a-ws1"), hostIn("h5", a.defaultWorkspaceId)] });

    const restored = await start(store, checkpoints);
    expect(restored.snapshots).toBe(0);
    expect(restored.rejected).toEqual([]);
    expect(restored.engine.appliedRevision).toBeGreaterThan(ref!.revision);
    await expectSameAsSnapshot(restored);
    expect(answers(restored.engine).filter((x) => x === true).length).toBeGreaterThan(0);
  });

  it("keeps checkpoints in the database table and starts from the newest", async () => {
    const table = databaseCheckpointStore(store.checkpoints);
    const writer = await start(store, table);
    engines.push(writer.engine);
    expect(writer.snapshots).toBe(1);
    await writer.engine.writeCheckpoint();
    const first = writer.engine.appliedRevision;
    const b = await store.tenants.get("ckpt-b");
    const moved = await store.relationships.write("ckpt-b", { touch: [hostIn("h7", b.defaultWorkspaceId), ...readGrant(b.defaultWorkspaceId, "dave")] });
    await writer.engine.waitFor(moved.revision, 5000);
    await writer.engine.writeCheckpoint();
    expect((await table.list()).map((r) => r.revision)).toEqual([moved.revision, first]);
    await store.checkpoints.write(0, new Uint8Array([1]), 2);
    expect(await store.checkpoints.list()).toEqual([moved.revision, first]);
    await store.relationships.write("ckpt-b", { delete: [hostIn("h7", b.defaultWorkspaceId)] });

    const restored = await start(store, table);
    expect(restored.snapshots).toBe(0);
    expect(restored.rejected).toEqual([]);
    await expectSameAsSnapshot(restored);
  });

  async function refusedThenSnapshot(bytes: Uint8Array, reason: CheckpointRejection) {
    const checkpoints = memoryCheckpointStore();
    await checkpoints.write(await store.feed.headRevision(), bytes);
    const started = await start(store, checkpoints);
    expect(started.rejected).toEqual([reason]);
    expect(started.snapshots).toBe(1);
    await expectSameAsSnapshot(started);
  }

  async function goodCheckpoint(): Promise<Uint8Array> {
    const checkpoints = memoryCheckpointStore();
    const writer = await start(store, checkpoints);
    engines.push(writer.engine);
    await writer.engine.writeCheckpoint();
    return checkpoints.read((await checkpoints.list())[0]!.key);
  }

  it("refuses a corrupt checkpoint (checksum) and loads the snapshot", async () => {
    const bytes = (await goodCheckpoint()).slice();
    bytes[bytes.length - 3]! ^= 0x40;
    await refusedThenSnapshot(bytes, "corrupt");
    await refusedThenSnapshot(bytes.subarray(0, 20), "corrupt");
    await refusedThenSnapshot(new TextEncoder().encode("not a checkpoint at all, just some bytes here"), "corrupt");
  });

  it("refuses an older checkpoint format", async () => {
    const bytes = (await goodCheckpoint()).slice();
    new DataView(bytes.buffer).setUint32(4, 0, true);
    await refusedThenSnapshot(bytes, "old-format");
  });

  it("refuses a checkpoint of another store", async () => {
    const foreign = encodeCheckpoint(reference?.engine.graph ?? (await start(store)).engine.graph, { storeId: "another-store", schemaHash: schemaHash(model), revision: 1 });
    await refusedThenSnapshot(foreign, "foreign-store");
  });

  it("refuses a checkpoint written under another schema", async () => {
    const otherModel = compileSchema(`${stageSchema}\ndefinition extra/thing {\n  relation t_owner: rbac/principal\n}\n`);
    const checkpoints = memoryCheckpointStore();
    const writer = await start(store, checkpoints, otherModel);
    engines.push(writer.engine);
    await writer.engine.writeCheckpoint();
    const bytes = await checkpoints.read((await checkpoints.list())[0]!.key);
    await refusedThenSnapshot(bytes, "schema-mismatch");
  });

  it("skips a damaged newest checkpoint for an older intact one", async () => {
    const good = await goodCheckpoint();
    const revision = await store.feed.headRevision();
    await store.relationships.write("ckpt-b", { touch: [hostIn("h6", (await store.tenants.get("ckpt-b")).defaultWorkspaceId)] });
    const checkpoints = memoryCheckpointStore();
    await checkpoints.write(revision, good);
    await checkpoints.write(revision + 100, good.subarray(0, good.length - 8));
    const started = await start(store, checkpoints);
    expect(started.rejected).toEqual(["corrupt"]);
    expect(started.snapshots).toBe(0);
    await expectSameAsSnapshot(started);
  });
});

describe("file checkpoint store", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gh-checkpoints-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lists newest first, keeps the newest two, leaves no temporary files", async () => {
    const files = fileCheckpointStore(join(dir, "nested"), 2);
    expect(await files.list()).toEqual([]);
    for (const revision of [3, 12, 7]) await files.write(revision, new Uint8Array([revision]));
    expect((await files.list()).map((r) => r.revision)).toEqual([12, 7]);
    expect([...(await files.read((await files.list())[0]!.key))]).toEqual([12]);
    expect((await readdir(join(dir, "nested"))).sort()).toEqual(["graph-0000000000000007.ghck", "graph-0000000000000012.ghck"]);
  });
});

describe("engine server with a checkpoint directory", () => {
  it("counts a refused checkpoint, serves from the snapshot, and writes checkpoints periodically", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gh-checkpoints-server-"));
    const store = await openStore({ pollIntervalMs: 20 });
    const tenant = (await store.tenants.bootstrap("ckpt-server")).value;
    await store.relationships.write("ckpt-server", { touch: readGrant(tenant.defaultWorkspaceId, "erin") });
    const files = fileCheckpointStore(dir);
    await files.write(await store.feed.headRevision(), new TextEncoder().encode("garbage"));
    const engine = await startEngine({ checkpoint: { store: files, intervalMs: 50 } }, store);
    try {
      const metrics = await (await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`)).text();
      expect(metrics).toContain('gatehouse_engine_checkpoint_fallbacks_total{reason="corrupt"} 1');
      const allowed = await call(engine.client, "check", { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { resource: principal("erin") } });
      expect(allowed.allowed).toBe(Allowed.ALLOWED_TRUE);
      // The graph moved past the (refused) file's revision: a real checkpoint replaces it.
      const written = await store.relationships.write("ckpt-server", { touch: readGrant(tenant.defaultWorkspaceId, "frank") });
      await expect.poll(async () => (await files.list())[0]?.revision, { timeout: 5000 }).toBe(written.revision);
      const bytes = await files.read((await files.list())[0]!.key);
      const { header } = decodeCheckpoint(bytes, model, { storeId: store.storeId, schemaHash: schemaHash(model) });
      expect(header.revision).toBe(written.revision);
    } finally {
      await engine.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
