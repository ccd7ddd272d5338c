// The evaluator against the reference evaluator (the least fixed point, test/support/reference.ts)
// on the random-schema generator's cyclic data, where SpiceDB often refuses: every answer the
// evaluator gives equals the reference's, and it refuses only where the reference says undefined
// (a cycle through exclusion) or the derivation is longer than the dispatch depth.
import { describe, expect, it } from "vitest";
import { check, compileSchema, EvaluatorError, lookupResources, lookupSubjects, RelationshipGraph } from "../src/index.js";
import { hasCycle } from "./support/differential.js";
import { randomSchemaCase } from "./support/random-schemas.js";
import { Reference, type ReferenceAnswer } from "./support/reference.js";

/** Cyclic data sets compared (the generator's seeds from 1 on, skipping schemas the evaluator refuses and acyclic data). */
const CASES = 300;

function outcome<T>(run: () => T): T | { error: string } {
  try {
    return run();
  } catch (error) {
    if (error instanceof EvaluatorError) return { error: error.message };
    throw error;
  }
}

const isDepth = (o: unknown): boolean => typeof o === "object" && o !== null && "error" in o && !/subtracted side/.test((o as { error: string }).error);

describe("evaluator against the reference on cyclic random data", () => {
  it(`${CASES} cyclic data sets: every answer equals the reference's`, () => {
    const tally = { cases: 0, checks: 0, lookups: 0, subjectLookups: 0, undefinedRefused: 0, depthRefused: 0 };
    const wrong: string[] = [];
    for (let seed = 1; tally.cases < CASES && seed < CASES * 20; seed++) {
      const testCase = randomSchemaCase(seed);
      if (!hasCycle(testCase)) continue;
      let graph: RelationshipGraph;
      try {
        graph = new RelationshipGraph(compileSchema(testCase.schema));
        for (const r of testCase.relationships) graph.add(r);
      } catch {
        continue;
      }
      tally.cases++;
      const reference = new Reference(graph.model, testCase.relationships);
      /** A refusal must be the reference's undefined, or (on a long chain) the depth limit. */
      const compare = (query: string, ours: unknown, expected: unknown): void => {
        if (expected === "undefined") {
          if (typeof ours === "object" && ours !== null && "error" in ours) tally.undefinedRefused++;
          else wrong.push(`seed ${seed} ${query}: reference undefined, evaluator ${JSON.stringify(ours)}`);
          return;
        }
        if (isDepth(ours) && testCase.chain) {
          tally.depthRefused++;
          return;
        }
        if (JSON.stringify(ours) !== JSON.stringify(expected)) wrong.push(`seed ${seed} ${query}: reference ${JSON.stringify(expected)}, evaluator ${JSON.stringify(ours)}`);
      };
      for (const q of testCase.checks) {
        tally.checks++;
        const expected: ReferenceAnswer = reference.check(q.resource, q.permission, q.subject);
        compare(
          `check ${JSON.stringify(q)}`,
          outcome(() => check(graph, q.resource, q.permission, q.subject)),
          expected,
        );
      }
      for (const q of testCase.lookups) {
        tally.lookups++;
        compare(
          `lookupResources ${JSON.stringify(q)}`,
          outcome(() => lookupResources(graph, q.resourceType, q.permission, q.subject)),
          reference.lookupResources(q.resourceType, q.permission, q.subject),
        );
      }
      for (const q of testCase.subjectLookups) {
        tally.subjectLookups++;
        const expected = reference.lookupSubjects(q.resource, q.permission, q.subjectType, q.subjectRelation, "unseen");
        const found = outcome(() => lookupSubjects(graph, q.resource, q.permission, q.subjectType, q.subjectRelation));
        // Compared as membership: each id of the type in the data, and an id in none (the wildcard).
        let ours: unknown = found;
        if (expected !== "undefined" && "ids" in found) {
          ours = new Map([...expected.keys()].map((id) => [id, found.ids.includes(id) || (found.wildcard && !found.excluded.includes(id))]));
          ours = JSON.stringify([...(ours as Map<string, boolean>)]);
        }
        compare(`lookupSubjects ${JSON.stringify(q)}`, ours, expected === "undefined" ? expected : JSON.stringify([...expected]));
      }
    }
    console.log(`reference comparison: ${JSON.stringify(tally)}`);
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(tally.cases).toBe(CASES);
  });
});
