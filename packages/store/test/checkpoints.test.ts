// The engines' checkpoint rows: opaque bytes by revision, newest first, the newest `keep` kept,
// bad arguments refused without changing anything. On PGlite and Postgres.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStoreError } from "../src/index.js";
import { openTestStore, testBackends, type TestStore } from "../src/testing.js";

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
