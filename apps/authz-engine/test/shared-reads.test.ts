import { describe, expect, it } from "vitest";
import { sharedReads } from "../src/graph/shared-reads.js";

/** A read whose answers the test hands out one at a time, in the order the reads began. */
function controlledRead() {
  const pending: { resolve(value: number): void; reject(error: Error): void }[] = [];
  let value = 0;
  let reads = 0;
  return {
    read: () => {
      reads++;
      return new Promise<number>((resolve, reject) => pending.push({ resolve, reject }));
    },
    /** Reads begun so far. */
    started: () => reads,
    /** Answers the oldest unanswered read with the next value (or fails it). */
    answer(error?: Error) {
      const next = pending.shift()!;
      if (error) next.reject(error);
      else next.resolve(++value);
    },
  };
}

/** One turn of the event loop (reads begin after the turn their first caller arrived in). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("shared head reads", () => {
  it("lets callers arriving together share one read, begun after they arrived", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const together = Array.from({ length: 16 }, () => head());
    expect(source.started()).toBe(0);
    await flush();
    expect(source.started()).toBe(1);
    source.answer();
    expect(await Promise.all(together)).toEqual(Array(16).fill(1));
  });

  it("never answers a caller from a read that began before it arrived", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const first = head();
    await flush();
    expect(source.started()).toBe(1);
    const joiners = Array.from({ length: 16 }, () => head());
    await flush();
    // Read 1 began before the joiners arrived: they share read 2, begun without waiting for read 1.
    expect(source.started()).toBe(2);
    source.answer();
    expect(await first).toBe(1);
    source.answer();
    expect(await Promise.all(joiners)).toEqual(Array(16).fill(2));
  });

  it("runs at most two reads at once; a third begins when the oldest settles", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const reads = [head()];
    await flush();
    reads.push(head());
    await flush();
    reads.push(head());
    await flush();
    await flush();
    expect(source.started()).toBe(2);
    source.answer();
    await flush();
    await flush();
    expect(source.started()).toBe(3);
    source.answer();
    source.answer();
    expect(await Promise.all(reads)).toEqual([1, 2, 3]);
  });

  it("fails the callers of a failed read only; the next caller reads again", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const first = head();
    await flush();
    const joiner = head();
    await flush();
    source.answer(new Error("database down"));
    await expect(first).rejects.toThrow("database down");
    source.answer(new Error("still down"));
    await expect(joiner).rejects.toThrow("still down");
    const after = head();
    await flush();
    source.answer();
    expect(await after).toBe(1);
  });
});
