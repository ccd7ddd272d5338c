import { compileSchema } from "@gatehouse/evaluator";
import { createSilentLogger } from "@gatehouse/telemetry";
import { describe, expect, it } from "vitest";
import { EngineGraph } from "../src/graph/engine-graph.js";
import type { ChangeBatch, GraphSource } from "../src/graph/source.js";
import { hostIn, stageSchema } from "./helpers.js";

// The graph names every object it was told of until it is built again: hosts reported and deleted
// with fresh ids all day would grow it without end. It rebuilds itself from its relationships once
// the objects it names have doubled, keeping every relationship and answer.
describe("objects no relationship names any more", () => {
  it("are released by a rebuild once they double, and every live relationship stays", async () => {
    let deliver: ((batch: ChangeBatch) => void) | undefined;
    const source: GraphSource = {
      snapshot: async () => ({ revision: 1 }),
      follow: (_from, onCommit) => {
        deliver = onCommit;
        return { stop() {} };
      },
      headRevision: async () => 1,
      encodeToken: (revision) => `t${revision}`,
      decodeToken: (token) => Number(token.slice(1)),
    };
    const bound = 50;
    const graph = new EngineGraph({ model: compileSchema(stageSchema), source, logger: createSilentLogger(), rebuildAtObjects: bound });
    await graph.load();
    if (!deliver) throw new Error("the graph did not follow the feed");

    const live = 5;
    let most = 0;
    for (let n = 0; n < 1000; n++) {
      const changes: ChangeBatch["changes"] = [{ op: "add", relationship: hostIn(`h${n}`, "ws-1") }];
      if (n >= live) changes.push({ op: "remove", relationship: hostIn(`h${n - live}`, "ws-1") });
      deliver({ revision: n + 2, changes });
      most = Math.max(most, graph.graph.nodeCount);
    }
    // 1,000 hosts named in all; never more than the bound's worth of objects held at once.
    expect(most).toBeLessThanOrEqual(bound);
    expect(graph.appliedRevision).toBe(1001);
    for (let n = 0; n < 1000; n++) expect(graph.has(hostIn(`h${n}`, "ws-1"))).toBe(n >= 1000 - live);
    expect(graph.graph.size).toBe(live);
  });
});
