// A bounded slice of the random-schema differential (the long run is `pnpm differential`): per seed
// a random schema (`+ & -` over arrows, subject sets of other types, wildcards, expiration-free),
// data with cycles and long chains, and every Check / LookupResources / LookupSubjects answer and
// the schema verdict compared with SpiceDB's, errors included.
import { describe, expect, it } from "vitest";
import { describeSeed, runSeed } from "./support/differential.js";
import { RANDOM_SCHEMA_SEEDS } from "./support/seeds.js";

describe("random schemas against SpiceDB", () => {
  for (const seed of RANDOM_SCHEMA_SEEDS) {
    it(`seed ${seed}`, async () => {
      const result = await runSeed(seed);
      const agreed = (result.schema === "accepted" || result.schema === "rejected") && result.disagreements.length === 0 && result.history.length === 0 && result.referenceDisagreements.length === 0;
      expect(agreed, describeSeed(result)).toBe(true);
    });
  }
});
