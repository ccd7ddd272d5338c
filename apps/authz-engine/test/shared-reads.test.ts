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

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("shared head reads", () => {
  it("lets callers arriving together share one read", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const together = Array.from({ length: 16 }, () => head());
    expect(source.started()).toBe(0);
    await flush();
    expect(source.started()).toBe(1);
    source.answer();
    expect(await Promise.all(together)).toEqual(Array(16).fill(1));
  });

  it("lets callers arriving during a read share one later read, never the one already running", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const first = head();
    await flush();
    expect(source.started()).toBe(1);
    const joiners = Array.from({ length: 16 }, () => head());
    // Nobody who arrived while read 1 ran gets its answer, and no extra read starts yet.
    expect(source.started()).toBe(1);
    source.answer();
    expect(await first).toBe(1);
    await flush();
    await flush();
    expect(source.started()).toBe(2);
    source.answer();
    expect(await Promise.all(joiners)).toEqual(Array(16).fill(2));
  });

  it("starts a fresh read for a caller that arrives after the reads settled", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const first = head();
    await flush();
    source.answer();
    expect(await first).toBe(1);
    const later = head();
    await flush();
    expect(source.started()).toBe(2);
    source.answer();
    expect(await later).toBe(2);
  });

  it("fails the callers of a failed read only; the next caller reads again", async () => {
    const source = controlledRead();
    const head = sharedReads(source.read);
    const first = head();
    await flush();
    const joiner = head();
    source.answer(new Error("database down"));
    await expect(first).rejects.toThrow("database down");
    await flush();
    await flush();
    source.answer(new Error("still down"));
    await expect(joiner).rejects.toThrow("still down");
    const after = head();
    await flush();
    source.answer();
    expect(await after).toBe(1);
  });
});
