import { compileSchema } from "@gatehouse/evaluator";
import { createSilentLogger } from "@gatehouse/telemetry";
import { describe, expect, it } from "vitest";
import { EngineGraph } from "../src/graph/engine-graph.js";
import type { ChangeBatch, GraphSource } from "../src/graph/source.js";
import { hostIn, stageSchema } from "./helpers.js";

// A replica loaded from an old checkpoint (or a lagging read replica's snapshot) is not ready until
// it has replayed the feed up to the head it saw when the load finished: routed traffic earlier,
// it would answer from a stale graph while busy replaying.
function sourceAt(loaded: number, head: () => Promise<number>): { source: GraphSource; deliver: (batch: ChangeBatch) => void } {
  let onCommit: ((batch: ChangeBatch) => void) | undefined;
  const source: GraphSource = {
    snapshot: async () => ({ revision: loaded }),
    follow: (_from, commit) => {
      onCommit = commit;
      return { stop() {} };
    },
    headRevision: head,
    encodeToken: (revision) => `t${revision}`,
    decodeToken: (token) => Number(token.slice(1)),
  };
  return {
    source,
    deliver: (batch) => {
      if (!onCommit) throw new Error("the graph did not follow the feed");
      onCommit(batch);
    },
  };
}

describe("readiness after a load behind the feed's head", () => {
  it("waits until the head seen at the end of the load is applied", async () => {
    const { source, deliver } = sourceAt(1, async () => 3);
    const graph = new EngineGraph({ model: compileSchema(stageSchema), source, logger: createSilentLogger() });
    await graph.load();
    expect(graph.ready).toBe(false);
    deliver({ revision: 2, changes: [{ op: "add", relationship: hostIn("h1", "ws-1") }] });
    expect(graph.ready).toBe(false);
    deliver({ revision: 3, changes: [{ op: "add", relationship: hostIn("h2", "ws-1") }] });
    expect(graph.ready).toBe(true);
    await graph.close();
  });

  it("is ready at once when the load is at the head, or when the head cannot be read", async () => {
    const atHead = new EngineGraph({ model: compileSchema(stageSchema), source: sourceAt(5, async () => 5).source, logger: createSilentLogger() });
    await atHead.load();
    expect(atHead.ready).toBe(true);
    await atHead.close();
    const unreadable = new EngineGraph({
      model: compileSchema(stageSchema),
      source: sourceAt(5, () => Promise.reject(new Error("primary unreachable"))).source,
      logger: createSilentLogger(),
    });
    await unreadable.load();
    expect(unreadable.ready).toBe(true);
    await unreadable.close();
  });
});
