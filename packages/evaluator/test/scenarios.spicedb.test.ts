// The scenario files themselves are checked against real SpiceDB, so their expectations are facts.
import { afterAll, describe, expect, it } from "vitest";
import { loadScenarios, parseCheck, parseSubject } from "./support/scenarios.js";
import { SpiceDbOracle } from "./support/spicedb-oracle.js";

for (const scenario of loadScenarios()) {
  describe(`scenario ${scenario.name} on SpiceDB`, () => {
    let oracle: SpiceDbOracle | undefined;
    const db = async (): Promise<SpiceDbOracle> => (oracle ??= await SpiceDbOracle.start(scenario.schema, scenario.relationships));
    afterAll(async () => oracle?.close());

    it("agrees with the assertions and expected lookups", async () => {
      const spicedb = await db();
      for (const text of scenario.assertTrue) {
        const c = parseCheck(text);
        expect(await spicedb.check(c.resource, c.permission, c.subject), text).toBe(true);
      }
      for (const text of scenario.assertFalse) {
        const c = parseCheck(text);
        expect(await spicedb.check(c.resource, c.permission, c.subject), text).toBe(false);
      }
      for (const { check: text } of scenario.assertErrors) {
        const c = parseCheck(text);
        await expect(spicedb.check(c.resource, c.permission, c.subject), text).rejects.toThrow();
      }
      for (const l of scenario.lookupResources) {
        expect(await spicedb.lookupResources(l.resourceType, l.permission, parseSubject(l.subject)), JSON.stringify(l)).toEqual(l.expected);
      }
    });
  });
}
