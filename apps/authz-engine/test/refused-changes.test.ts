import { compileSchema, type Relationship } from "@gatehouse/evaluator";
import { createSilentLogger } from "@gatehouse/telemetry";
import { describe, expect, it } from "vitest";
import { EngineGraph } from "../src/graph/engine-graph.js";
import type { ChangeBatch, GraphSource, RelationshipChange } from "../src/graph/source.js";
import { hostIn, stageSchema } from "./helpers.js";

// A committed change the schema refuses can never apply; the graph must skip it (not retry it
// forever and stall every tenant behind it), count it and go on with the rest of the commit.
describe("a committed change the graph refuses", () => {
  it("is skipped and reported once, and the rest of the commit and later commits apply", async () => {
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
    const refused: Array<{ change: RelationshipChange; revision: number }> = [];
    const graph = new EngineGraph({ model: compileSchema(stageSchema), source, logger: createSilentLogger(), onRefused: (change, revision) => refused.push({ change, revision }) });
    await graph.load();
    if (!deliver) throw new Error("the graph did not follow the feed");

    const unknownType: Relationship = { ...hostIn("h0", "ws-1"), resourceType: "nowhere/thing" };
    const first = hostIn("h1", "ws-1");
    const second = hostIn("h2", "ws-1");
    deliver({
      revision: 2,
      changes: [
        { op: "add", relationship: unknownType },
        { op: "add", relationship: first },
      ],
    });
    deliver({ revision: 3, changes: [{ op: "add", relationship: second }] });

    expect(refused).toEqual([{ change: { op: "add", relationship: unknownType }, revision: 2 }]);
    expect(graph.appliedRevision).toBe(3);
    expect(graph.has(first)).toBe(true);
    expect(graph.has(second)).toBe(true);
  });
});
