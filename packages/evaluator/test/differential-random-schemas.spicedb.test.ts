// A bounded slice of the random-schema differential (the long run is `pnpm differential`): per seed
// a random schema (`+ & -` over arrows, subject sets of other types, wildcards, expiration-free),
// data with cycles and long chains, and every Check / LookupResources / LookupSubjects answer and
// the schema verdict compared with SpiceDB's, errors included.
import { describe, expect, it } from "vitest";
import { describeSeed, runSeed } from "./support/differential.js";

/**
 * The first twelve, and seeds whose cyclic or chained data once disagreed (lookups past SpiceDB's
 * depth; 203: a batch of subject sets failing as a whole).
 */
const SEEDS = [...Array.from({ length: 12 }, (_, i) => i + 1), 40, 43, 53, 203];

describe("random schemas against SpiceDB", () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}`, async () => {
      const result = await runSeed(seed);
      const agreed = (result.schema === "accepted" || result.schema === "rejected") && result.disagreements.length === 0;
      expect(agreed, describeSeed(result)).toBe(true);
    });
  }
});
