// Differential test against real SpiceDB: on seeded random graphs every Check and every
// LookupResources answer must equal SpiceDB's, and lookupResources must equal brute-force Check.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check, compileSchema, formatRelationship, formatSubject, lookupResources, RelationshipGraph, type Model } from "../src/index.js";
import { bruteForceLookup } from "./support/brute-force.js";
import { randomHandCase, randomStageCase, seededRandom, type RandomCase } from "./support/random-graphs.js";
import { fixturesDir } from "./support/scenarios.js";
import { FIXED_SCHEMA_SEEDS } from "./support/seeds.js";
import { SpiceDbOracle } from "./support/spicedb-oracle.js";

const stageSchema = readFileSync(join(fixturesDir, "stage/schema.zed"), "utf8");

async function compare(label: string, seed: number, schema: string, testCase: RandomCase): Promise<number> {
  const graph = new RelationshipGraph(compileSchema(schema));
  for (const r of testCase.relationships) graph.add(r);
  const spicedb = await SpiceDbOracle.start(schema, testCase.relationships);
  const context = (what: string): string =>
    `${label} seed=${seed}: ${what}\n(reproduce with this seed; ${testCase.relationships.length} relationships)\n${testCase.relationships.map(formatRelationship).join("\n")}`;
  let compared = 0;
  try {
    // One CheckBulkPermissions per 100 checks: SpiceDB's answer per item is its CheckPermission's,
    // for about a fifth of the CPU of single calls on the stage schema.
    const answers = await spicedb.checkAll(testCase.checks);
    testCase.checks.forEach((q, i) => {
      const what = `check ${q.resource.type}:${q.resource.id}#${q.permission}@${formatSubject(q.subject)}`;
      const expected = answers[i]!;
      if (check(graph, q.resource, q.permission, q.subject) !== expected) expect.fail(context(`${what} should be ${expected}`));
      compared++;
    });
    for (const l of testCase.lookups) {
      const what = `lookupResources ${l.resourceType}#${l.permission}@${formatSubject(l.subject)}`;
      const ours = lookupResources(graph, l.resourceType, l.permission, l.subject);
      expect(ours, context(what)).toEqual(await spicedb.lookupResources(l.resourceType, l.permission, l.subject));
      expect(ours, context(`${what} vs brute force`)).toEqual(bruteForceLookup(graph, l.resourceType, l.permission, l.subject));
      compared++;
    }
  } finally {
    await spicedb.close();
  }
  return compared;
}

describe("differential against SpiceDB", () => {
  let stageModel: Model | undefined;
  for (const seed of FIXED_SCHEMA_SEEDS) {
    it(`stage schema, seed ${seed}`, async () => {
      stageModel ??= compileSchema(stageSchema);
      const testCase = randomStageCase(seededRandom(seed), stageModel);
      expect(await compare("stage", seed, stageSchema, testCase)).toBe(testCase.checks.length + testCase.lookups.length);
    });
    it(`hand schema with & and -, seed ${seed}`, async () => {
      const { HAND_SCHEMA } = await import("./support/random-graphs.js");
      const testCase = randomHandCase(seededRandom(1000 + seed));
      expect(await compare("hand", seed, HAND_SCHEMA, testCase)).toBe(testCase.checks.length + testCase.lookups.length);
    });
  }
});
