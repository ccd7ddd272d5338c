// The engines' checkpoint rows: opaque bytes by revision, newest first, the newest `keep` kept,
// stored in parts (small parts here: the same paths as the 64 MiB parts of a large graph), bad
// arguments refused without changing anything. On PGlite and Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError } from "../src/index.js";
import { checkpointRepository } from "../src/repos/checkpoints.js";
import { openTestStore, testBackends, type TestStore } from "../src/testing.js";
import type { CheckpointRepository } from "../src/types.js";
import { type OpenedContext, openWriteContext } from "./support/write-context.js";

const backends = await testBackends();

describe.each(backends)("checkpoints on $name", (backend) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(backend);
  });
  afterAll(async () => {
    await store?.close();
  });

  it("stores bytes by revision, lists newest first and keeps the newest", async () => {
    expect(await store.checkpoints.list()).toEqual([]);
    expect(await store.checkpoints.read(1)).toBeNull();
    const bytes = (n: number) => Uint8Array.from({ length: 1000 }, (_, i) => (i * n) & 0xff);
    for (const revision of [5, 9, 7]) await store.checkpoints.write(revision, bytes(revision), 2);
    expect(await store.checkpoints.list()).toEqual([9, 7]);
    expect([...(await store.checkpoints.read(9))!]).toEqual([...bytes(9)]);
    expect(await store.checkpoints.read(5)).toBeNull();
    // The same revision again replaces its bytes.
    await store.checkpoints.write(9, bytes(3), 2);
    expect([...(await store.checkpoints.read(9))!]).toEqual([...bytes(3)]);
    expect(await store.checkpoints.list()).toEqual([9, 7]);
  });

  it("refuses a bad revision or keep count and changes nothing", async () => {
    const before = await store.checkpoints.list();
    for (const write of [() => store.checkpoints.write(-1, new Uint8Array(1), 2), () => store.checkpoints.write(1.5, new Uint8Array(1), 2), () => store.checkpoints.write(11, new Uint8Array(1), 0)]) {
      const error = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isStoreError(error) && error.code).toBe("invalid-argument");
    }
    expect(await store.checkpoints.list()).toEqual(before);
  });
});

describe.each(backends)("checkpoints in parts on $name", (backend) => {
  let opened: OpenedContext;
  let checkpoints: CheckpointRepository;
  beforeAll(async () => {
    opened = await openWriteContext(backend);
    checkpoints = checkpointRepository(opened.ctx, { partBytes: 300 });
  });
  afterAll(async () => {
    await opened?.close();
  });

  it("stores a checkpoint in parts and reads it back whole, whatever its size against the part size", async () => {
    for (const size of [0, 1, 299, 300, 301, 1000, 4096]) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 7 + size) & 0xff);
      await checkpoints.write(100 + size, bytes, 10);
      const back = await checkpoints.read(100 + size);
      expect(back?.length).toBe(size);
      expect(Buffer.from(back!).equals(Buffer.from(bytes))).toBe(true);
    }
    const [row] = await opened.ctx.db.query<{ parts: number; size: string }>("SELECT parts, size::text AS size FROM gh_checkpoints WHERE revision = 4196");
    expect(row).toEqual({ parts: 14, size: "4096" });
    // Replacing a revision replaces its parts; dropping one (keep) drops its parts.
    await checkpoints.write(4196, new Uint8Array(310).fill(9), 10);
    expect([...(await checkpoints.read(4196))!]).toEqual(new Array(310).fill(9));
    await checkpoints.write(5000, new Uint8Array(10), 1);
    expect(await checkpoints.list()).toEqual([5000]);
    const [{ parts }] = (await opened.ctx.db.query<{ parts: string }>("SELECT count(*)::text AS parts FROM gh_checkpoint_parts")) as [{ parts: string }];
    expect(parts).toBe("1");
  });

  it("reads a checkpoint written before parts (its bytes in the row), and none whose parts went missing", async () => {
    await opened.ctx.db.query("INSERT INTO gh_checkpoints (revision, bytes) VALUES (6000, $1)", [Uint8Array.from([1, 2, 3])]);
    expect([...(await checkpoints.read(6000))!]).toEqual([1, 2, 3]);
    await checkpoints.write(6001, new Uint8Array(900).fill(4), 10);
    // A reader configured with another part size reads it as written.
    expect((await checkpointRepository(opened.ctx, { partBytes: 1024 }).read(6001))?.length).toBe(900);
    await opened.ctx.db.query("DELETE FROM gh_checkpoint_parts WHERE revision = 6001 AND part = 2");
    expect(await checkpoints.read(6001)).toBeNull();
    expect(() => checkpointRepository(opened.ctx, { partBytes: 0 })).toThrow(/part size/);
  });
});
