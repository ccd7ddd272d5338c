// History independence over every random seed the differential suites use: each query answered on
// a fresh graph and, in random orders, on a graph that answered the others first, must agree.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../src/index.js";
import { describeHistory, historyDifferences } from "./support/history.js";
import { HAND_SCHEMA, randomHandCase, randomStageCase, seededRandom } from "./support/random-graphs.js";
import { randomSchemaCase } from "./support/random-schemas.js";
import { fixturesDir, loadScenarios, parseCheck, parseObject, parseSubject } from "./support/scenarios.js";
import { FIXED_SCHEMA_SEEDS, RANDOM_SCHEMA_SEEDS } from "./support/seeds.js";

describe("answers do not depend on earlier queries", () => {
  for (const scenario of loadScenarios()) {
    it(`scenario ${scenario.name}`, () => {
      const checks = [...scenario.assertTrue, ...scenario.assertFalse, ...scenario.assertErrors.map((e) => e.check)].map(parseCheck);
      const lookups = scenario.lookupResources.map((l) => ({ resourceType: l.resourceType, permission: l.permission, subject: parseSubject(l.subject) }));
      const subjectLookups = scenario.lookupSubjects.map((l) => ({ ...l, resource: parseObject(l.resource) }));
      const queries = { checks, lookups, subjectLookups };
      expect(historyDifferences(compileSchema(scenario.schema), scenario.relationships, queries, 1).map(describeHistory)).toEqual([]);
    });
  }
  for (const seed of FIXED_SCHEMA_SEEDS) {
    it(`stage schema, seed ${seed}`, () => {
      const model = compileSchema(readFileSync(join(fixturesDir, "stage/schema.zed"), "utf8"));
      const testCase = randomStageCase(seededRandom(seed), model);
      expect(historyDifferences(model, testCase.relationships, testCase, seed).map(describeHistory)).toEqual([]);
    });
    it(`hand schema, seed ${seed}`, () => {
      const model = compileSchema(HAND_SCHEMA);
      const testCase = randomHandCase(seededRandom(1000 + seed));
      expect(historyDifferences(model, testCase.relationships, testCase, seed).map(describeHistory)).toEqual([]);
    });
  }
  for (const seed of RANDOM_SCHEMA_SEEDS) {
    it(`random schema, seed ${seed}`, () => {
      const testCase = randomSchemaCase(seed);
      let model: ReturnType<typeof compileSchema>;
      try {
        model = compileSchema(testCase.schema);
      } catch {
        return; // a schema refused (as SpiceDB refuses it, checked by the differential) has no queries
      }
      expect(historyDifferences(model, testCase.relationships, testCase, seed).map(describeHistory)).toEqual([]);
    });
  }
});
