// Graph checkpoints: a replica starting from the newest usable checkpoint and replaying the change
// feed after it ends up with exactly the graph (and answers) of a replica that read the snapshot;
// a corrupt, old-format, foreign or other-schema checkpoint is refused (logged, counted) and the
// start falls back to an older checkpoint or to the snapshot. On PGlite and on Postgres.
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { crc32 } from "node:zlib";
import { check, compileSchema, EvaluationError, formatRelationship, lookupResources, RelationshipGraph, type Model } from "@gatehouse/evaluator";
import { Allowed } from "@gatehouse/proto";
import { compileRoleSchema } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";
import { openTestStore, testBackends, type TestStore } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineGraph } from "../src/graph/engine-graph.js";
import {
  CheckpointError,
  crc32Of,
  databaseCheckpointStore,
  decodeCheckpoint,
  decodeInProcessCheckpoint,
  encodeCheckpoint,
  fileCheckpointStore,
  loadCheckpoint,
  memoryCheckpointStore,
  schemaHash,
  type CheckpointRejection,
  type CheckpointStore,
} from "../src/graph/checkpoint.js";
import { crc32OnThread, type ChecksumWorkerFactory } from "../src/graph/checksum-thread.js";
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

  it("refuses a format-2 checkpoint (the layout before the graph's arrays were stored as they are)", async () => {
    const bytes = formatTwo(await goodCheckpoint());
    expect(() => decodeCheckpoint(bytes, model, { storeId: store.storeId, schemaHash: schemaHash(model) })).toThrow(/checkpoint format 2, this engine reads 4/);
    await refusedThenSnapshot(bytes, "old-format");
  });

  it("refuses a format-3 checkpoint (its id table holds hashes where format 4 holds typed tags)", async () => {
    const bytes = (await goodCheckpoint()).slice();
    new DataView(bytes.buffer).setUint32(4, 3, true);
    expect(() => decodeCheckpoint(bytes, model, { storeId: store.storeId, schemaHash: schemaHash(model) })).toThrow(/checkpoint format 3, this engine reads 4/);
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

  it("starts from a checkpoint file read by two threads and checksummed on a worker, also when the worker fails; refuses a damaged file either way", async () => {
    const good = await goodCheckpoint();
    const damaged = good.slice();
    damaged[damaged.length >> 1]! ^= 0x10;
    const dir = await mkdtemp(join(tmpdir(), "gh-checkpoints-threads-"));
    try {
      for (const [what, options] of [
        ["worker", {}],
        ["worker that exits without answering", { checksumWorker: exitingWorker }],
      ] as const) {
        const files = fileCheckpointStore(join(dir, what.replaceAll(" ", "-")), 2, options);
        expect(files.readWithChecksum, what).toBeDefined();
        await files.write(await store.feed.headRevision(), good);
        const started = await start(store, files);
        expect([started.rejected, started.snapshots], what).toEqual([[], 0]);
        await expectSameAsSnapshot(started);
        await files.write((await store.feed.headRevision()) + 1, damaged);
        const refused = await start(store, files);
        // The damaged newest file is refused as corrupt; the intact older one is used.
        expect([refused.rejected, refused.snapshots], what).toEqual([["corrupt"], 0]);
        await expectSameAsSnapshot(refused);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A checksum worker that ends without answering. */
const exitingWorker: ChecksumWorkerFactory = (work) => new Worker("process.exit(3)", { eval: true, workerData: work });

describe("checkpoint checksum", () => {
  // node:zlib's crc32 covers only length mod 4 GiB of a larger buffer (a 100M checkpoint is 4.4 GiB),
  // so the checksum is taken in parts; a CRC continued part by part must be the CRC of the whole.
  it("is the CRC-32 of the whole buffer whatever the part size, continued from a given value", () => {
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 131 + 7) & 0xff);
    for (const part of [1, 7, 64, 999, 1000, 4096]) {
      expect(crc32Of(bytes, 0, part), `part ${part}`).toBe(crc32(bytes));
      expect(crc32Of(bytes.subarray(10), crc32(bytes.subarray(0, 10)), part), `part ${part}, continued`).toBe(crc32(bytes));
    }
    expect(crc32Of(new Uint8Array(0), 1234)).toBe(1234);
  });
});

describe("checkpoint made for this process's threads (in shared memory)", () => {
  it("is written into the buffer given, decoded to the same answers without a checksum, and refused where a stored checkpoint is read", () => {
    const graph = new RelationshipGraph(model);
    const rel = (resourceId: string, subjectId: string) => ({ resourceType: "hbi/host", resourceId, relation: "t_workspace", subjectType: "rbac/workspace", subjectId });
    for (let i = 0; i < 50; i++) graph.add(rel(`h${i}`, `ws${i % 5}`));
    const expected = { storeId: "store-1", schemaHash: schemaHash(model) };
    const bytes = encodeCheckpoint(graph, { storeId: "store-1", schemaHash: expected.schemaHash, revision: 7 }, { inProcess: { allocate: (n) => new Uint8Array(new SharedArrayBuffer(n)) } });
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const { graph: decoded, header } = decodeInProcessCheckpoint(bytes, model, expected);
    expect(header.revision).toBe(7);
    expect([...decoded.relationships()].map(formatRelationship).sort()).toEqual([...graph.relationships()].map(formatRelationship).sort());
    expect(() => decodeInProcessCheckpoint(bytes, model, { ...expected, storeId: "store-2" })).toThrow(/another store/);
    // It carries no checksum: never read as a stored checkpoint.
    expect(() => decodeCheckpoint(bytes, model, expected)).toThrow(/checksum/);
  });
});

describe("checksum on a worker thread", () => {
  it("is the CRC-32 of the ranges continued one after the other, over a shared buffer; null for a buffer that is not shared", async () => {
    const bytes = new Uint8Array(new SharedArrayBuffer(5000));
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
    expect(await crc32OnThread(bytes, [[0, 5000]])).toBe(crc32(bytes));
    expect(
      await crc32OnThread(bytes, [
        [0, 12],
        [16, 5000],
      ]),
    ).toBe(crc32(bytes.subarray(16), crc32(bytes.subarray(0, 12))));
    expect(await crc32OnThread(bytes.subarray(100, 300), [[0, 200]])).toBe(crc32(bytes.subarray(100, 300)));
    expect(await crc32OnThread(bytes, [])).toBe(0);
    expect(await crc32OnThread(bytes.slice(), [[0, 5000]])).toBeNull();
  });

  // A 100M checkpoint is 4.4 GiB: a typed array handed to a worker keeps its length only modulo
  // 4 GiB, so the worker must be given the buffer. Untouched pages read as zeros without memory.
  it("covers a buffer of more than 4 GiB to its end", async () => {
    const bytes = new Uint8Array(new SharedArrayBuffer(2 ** 32 + 4096));
    bytes[5] = 1;
    bytes[2 ** 32 + 100] = 7;
    const whole = crc32Of(bytes);
    expect(whole).not.toBe(crc32Of(bytes.subarray(0, 4096)));
    expect(await crc32OnThread(bytes, [[0, bytes.length]])).toBe(whole);
  });

  it("answers null, never rejecting, when the worker cannot start, throws, exits without answering or answers something else", async () => {
    const bytes = new Uint8Array(new SharedArrayBuffer(64));
    for (const failing of failingWorkers) expect(await crc32OnThread(bytes, [[0, 64]], failing)).toBeNull();
  });
});

/** Checksum workers that fail each way a worker can. */
const failingWorkers: ChecksumWorkerFactory[] = [
  () => {
    throw new Error("no threads here");
  },
  (work) => new Worker("throw new Error('broken worker')", { eval: true, workerData: work }),
  (work) => new Worker("this is not javascript", { eval: true, workerData: work }),
  exitingWorker,
  (work) => new Worker("require('node:worker_threads').parentPort.postMessage('nonsense'); setInterval(() => {}, 1000)", { eval: true, workerData: work }),
];

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
      await expect.poll(async () => (await files.list())[0]?.revision, { timeout: 600_000 }).toBe(written.revision);
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

/**
 * A format-2 checkpoint as that version wrote it: a 48-byte prefix (magic, version 2, header length,
 * a reserved word, sha256 of everything but the digest), the header JSON padded to 4, then a body.
 * Only the prefix matters to a reader of a later format, which must refuse it by its version.
 */
function formatTwo(current: Uint8Array): Uint8Array {
  const view = new DataView(current.buffer, current.byteOffset, current.byteLength);
  const headerLength = view.getUint32(8, true);
  const header = current.subarray(16, 16 + headerLength);
  const body = current.subarray(16 + Math.ceil(headerLength / 8) * 8);
  const out = new Uint8Array(48 + ((headerLength + 3) & ~3) + body.length);
  const outView = new DataView(out.buffer);
  outView.setUint32(0, view.getUint32(0, true), true);
  outView.setUint32(4, 2, true);
  outView.setUint32(8, headerLength, true);
  out.set(header, 48);
  out.set(body, 48 + ((headerLength + 3) & ~3));
  out.set(createHash("sha256").update(out.subarray(0, 16)).update(out.subarray(48)).digest(), 16);
  return out;
}

describe("damaged checkpoints (bytes flipped at random)", () => {
  // A graph with every kind of index: nested workspaces, grants through groups and roles, hosts.
  const graph = new RelationshipGraph(model);
  for (const r of [
    childWorkspace("fz-ws1", "fz-root"),
    childWorkspace("fz-ws2", "fz-ws1"),
    ...readGrant("fz-root", "alice"),
    ...readGrant("fz-ws2", "bob"),
    ...Array.from({ length: 60 }, (_, i) => hostIn(`fz-h${i}`, i % 3 === 0 ? "fz-root" : i % 3 === 1 ? "fz-ws1" : "fz-ws2")),
  ]) {
    graph.add(r);
  }
  graph.compact();
  const expected = { storeId: "fuzz-store", schemaHash: schemaHash(model) };
  const good = encodeCheckpoint(graph, { ...expected, revision: 7 });
  const ask = (g: RelationshipGraph) => [
    ...["alice", "bob", "nobody"].map((user) => lookupResources(g, "hbi/host", "view", { type: "rbac/principal", id: `redhat/${user}` }).join(",")),
    ...["fz-h0", "fz-h1", "fz-h2", "fz-h59"].flatMap((host) => ["alice", "bob"].map((user) => check(g, { type: "hbi/host", id: host }, "view", { type: "rbac/principal", id: `redhat/${user}` }))),
  ];
  const answers = ask(graph);

  /** Fixes the CRC-32 after damage, so the decoder's own checks (not the checksum) must catch it. */
  const reseal = (bytes: Uint8Array) => {
    if (bytes.length >= 16) new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(12, crc32(bytes.subarray(16), crc32(bytes.subarray(0, 12))), true);
    return bytes;
  };

  it("decodes the undamaged checkpoint to the same answers", () => {
    expect(ask(decodeCheckpoint(good, model, expected).graph)).toEqual(answers);
  });

  it("refuses every damaged copy with a CheckpointError, or decodes one that answers without failing", () => {
    let seed = 20;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const outcomes = { checksum: 0, structure: 0, decoded: 0 };
    for (let round = 0; round < 600; round++) {
      const bytes = good.slice();
      const flips = 1 + Math.floor(random() * 4);
      for (let f = 0; f < flips; f++) {
        // Mostly single bits; sometimes a whole word set to an extreme (a length or an index).
        const at = Math.floor(random() * bytes.length);
        if (random() < 0.8) bytes[at]! ^= 1 << Math.floor(random() * 8);
        else if (at + 4 <= bytes.length) new DataView(bytes.buffer).setInt32(at & ~3, [0x7fffffff, -1, -0x80000000, 1 << 20][Math.floor(random() * 4)]!, true);
      }
      const resealed = round % 2 === 1;
      if (resealed) reseal(bytes);
      try {
        const { graph: decoded } = decodeCheckpoint(bytes, model, expected);
        // A flip that left a consistent graph (a different id byte, say): it must still answer.
        try {
          ask(decoded);
        } catch (error) {
          expect(error).toBeInstanceOf(EvaluationError);
        }
        outcomes.decoded++;
      } catch (error) {
        expect(error).toBeInstanceOf(CheckpointError);
        const reason = (error as CheckpointError).reason;
        expect(["corrupt", "old-format", "foreign-store", "schema-mismatch"]).toContain(reason);
        if (resealed) outcomes.structure++;
        else outcomes.checksum++;
      }
    }
    // Unsealed damage is always caught by the checksum; resealed damage mostly by the structure checks.
    expect(outcomes.checksum).toBe(300);
    expect(outcomes.structure).toBeGreaterThan(100);
  });

  it("refuses a resealed checkpoint whose id table or index section is damaged", () => {
    // Where the body's sections start (graph codec: an 8-byte length, the description, then each
    // array padded to 8 bytes in the order encodeGraph writes them).
    const view = new DataView(good.buffer, good.byteOffset, good.byteLength);
    const body = 16 + Math.ceil(view.getUint32(8, true) / 8) * 8;
    const descriptionLength = view.getUint32(body, true);
    const d = JSON.parse(new TextDecoder().decode(good.subarray(body + 8, body + 8 + descriptionLength))) as {
      nodes: number;
      idBytes: number;
      idTable: number;
      usersets: number;
      indexes: Array<[number, ...Array<[number, number, number, number, number]>]>;
    };
    const pad = (n: number) => Math.ceil(n / 8) * 8;
    const table = body + 8 + pad(descriptionLength) + pad(d.nodes * 2) + pad((d.nodes + 1) * 4) + pad(d.idBytes);
    const firstIndex = table + pad(d.idTable * 4) + pad(d.usersets * 4) + pad(d.usersets * 2);
    const [, forward] = d.indexes[0]!;
    // The first index's targets: after its keys (if keyed) and offsets.
    const targets = firstIndex + pad(forward![2] * 4) + pad(forward![3] * 4);
    const entries = (bytes: Uint8Array) => new Int32Array(bytes.buffer, bytes.byteOffset + table, d.idTable);
    const cases: Array<[string, (bytes: Uint8Array) => void, RegExp]> = [
      ["an id table entry past the nodes", (b) => (entries(b)[entries(b).findIndex((v, i) => i % 2 === 1 && v !== 0)] = d.nodes + 1), /id index entry/],
      [
        "a node filed twice in the id table",
        (b) => {
          const e = entries(b);
          const filled = [...e.keys()].filter((i) => i % 2 === 1 && e[i] !== 0);
          e[filled[1]!] = e[filled[0]!]!;
        },
        /id index entry/,
      ],
      ["an index target past the nodes", (b) => new DataView(b.buffer, b.byteOffset).setInt32(targets, d.nodes + 5, true), /forward index .*out of range/],
      ["an index target below the subject sets", (b) => new DataView(b.buffer, b.byteOffset).setInt32(targets, -(d.usersets + 5), true), /forward index .*out of range/],
    ];
    expect(forward![4]).toBeGreaterThan(0);
    for (const [what, damage, reason] of cases) {
      const bytes = good.slice();
      damage(bytes);
      expect(() => decodeCheckpoint(reseal(bytes), model, expected), what).toThrow(/not a graph of this schema/);
      expect(() => decodeCheckpoint(reseal(bytes), model, expected), what).toThrow(reason);
    }
    expect(ask(decodeCheckpoint(good.slice(), model, expected).graph)).toEqual(answers);
  });

  describe("through the file store's threaded read", () => {
    let dir: string;
    let written = 0;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "gh-checkpoints-damaged-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    /** Writes `bytes` as a checkpoint file and loads it as a start does; the outcome as decodeCheckpoint's below. */
    const loadFile = async (bytes: Uint8Array, checksumWorker?: ChecksumWorkerFactory) => {
      const name = `graph-${String(++written).padStart(16, "0")}.ghck`;
      await writeFile(join(dir, name), bytes);
      const files = fileCheckpointStore(dir, 1000, checksumWorker ? { checksumWorker } : {});
      return outcome(() => loadCheckpoint(files, name, model, expected));
    };
    const outcome = async (load: () => Promise<{ graph: RelationshipGraph }> | { graph: RelationshipGraph }) => {
      try {
        const { graph: decoded } = await load();
        try {
          return { answers: ask(decoded) };
        } catch (error) {
          return { answersFailed: (error as Error).message };
        }
      } catch (error) {
        return error instanceof CheckpointError ? { refused: error.reason, message: error.message } : { failed: String(error) };
      }
    };

    it("decodes an intact file to the same answers, over a shared buffer that re-encodes to the same checkpoint", async () => {
      expect(await loadFile(good)).toEqual({ answers });
      const name = `graph-${String(++written).padStart(16, "0")}.ghck`;
      await writeFile(join(dir, name), good);
      const read = await fileCheckpointStore(dir, 1000).readWithChecksum!(name);
      expect(read.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
      const { graph: loaded, header } = await loadCheckpoint(fileCheckpointStore(dir, 1000), name, model, expected);
      const again = encodeCheckpoint(loaded, { ...expected, revision: header.revision });
      expect(ask(decodeCheckpoint(again, model, expected).graph)).toEqual(answers);
      expect(again.subarray(16 + Math.ceil(new DataView(again.buffer).getUint32(8, true) / 8) * 8)).toEqual(good.subarray(16 + Math.ceil(new DataView(good.buffer).getUint32(8, true) / 8) * 8));
    });

    it("refuses every damaged file as decodeCheckpoint refuses its bytes: the same reason and message", async () => {
      let seed = 77;
      const random = () => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return seed / 2 ** 32;
      };
      const damaged: Uint8Array[] = [];
      for (let round = 0; round < 40; round++) {
        const bytes = good.slice();
        for (let f = 1 + Math.floor(random() * 3); f > 0; f--) bytes[Math.floor(random() * bytes.length)]! ^= 1 << Math.floor(random() * 8);
        // Half resealed: then the decoder's checks, not the checksum, must refuse them.
        damaged.push(round % 2 === 1 ? reseal(bytes) : bytes);
      }
      for (const length of [0, 3, 15, 16, 40, good.length >> 1, good.length - 1]) damaged.push(reseal(good.slice(0, length)), good.slice(0, length));
      const oldVersion = good.slice();
      new DataView(oldVersion.buffer).setUint32(4, 3, true);
      const badMagic = good.slice();
      badMagic[0]! ^= 1;
      damaged.push(oldVersion, badMagic, encodeCheckpoint(graph, { ...expected, storeId: "another-store", revision: 7 }));
      const reasons: string[] = [];
      for (const bytes of damaged) {
        const before = await outcome(() => decodeCheckpoint(bytes, model, expected));
        expect(await loadFile(bytes)).toEqual(before);
        reasons.push("refused" in before ? `${before.refused}: ${before.message}` : "decoded");
      }
      // Every way of refusing is among them: the checksum, the decoder's checks, the prefix, the header.
      for (const reason of [
        "corrupt: checkpoint checksum mismatch",
        "corrupt: checkpoint body is not a graph",
        "corrupt: checkpoint is 3 bytes",
        "corrupt: not a checkpoint",
        "old-format:",
        "foreign-store:",
      ]) {
        expect(
          reasons.some((r) => r.startsWith(reason)),
          reason,
        ).toBe(true);
      }
    });

    it("refuses a file whose graph decodes but whose checksum does not match, before the graph is used", async () => {
      // A byte of the header's creation time: nothing but the checksum covers it.
      const bytes = good.slice();
      const at = new TextDecoder().decode(bytes.subarray(16, 16 + new DataView(bytes.buffer).getUint32(8, true))).indexOf('"createdAt":"') + 16 + 13;
      bytes[at]! ^= 0x01;
      expect(ask(decodeCheckpoint(reseal(bytes.slice()), model, expected).graph)).toEqual(answers);
      expect(await loadFile(bytes)).toEqual({ refused: "corrupt", message: "checkpoint checksum mismatch" });
    });

    it("takes the checksum on the main thread when the worker fails, refusing and accepting the same files", async () => {
      const flipped = good.slice();
      flipped[good.length - 100]! ^= 0x04;
      for (const failing of failingWorkers) {
        expect(await loadFile(good, failing)).toEqual({ answers });
        expect(await loadFile(flipped, failing)).toEqual({ refused: "corrupt", message: "checkpoint checksum mismatch" });
      }
    });
  });

  it("refuses a truncated checkpoint at every length", () => {
    for (let length = 0; length < good.length; length += Math.max(1, Math.floor(good.length / 97))) {
      expect(() => decodeCheckpoint(reseal(good.slice(0, length)), model, expected), `length ${length}`).toThrow(CheckpointError);
    }
  });
});
