// The scenario files themselves are checked against real SpiceDB, so their expectations are facts.
// Where a scenario records that SpiceDB answers differently (`spicedbDiffers`: its defects and the
// places where it disagrees with itself), SpiceDB must give exactly the recorded answer instead.
import { afterAll, describe, expect, it } from "vitest";
import { loadScenarios, parseCheck, parseObject, parseSubject } from "./support/scenarios.js";
import { SpiceDbOracle } from "./support/spicedb-oracle.js";

for (const scenario of loadScenarios()) {
  describe(`scenario ${scenario.name} on SpiceDB`, () => {
    let oracle: SpiceDbOracle | undefined;
    const db = async (): Promise<SpiceDbOracle> => (oracle ??= await SpiceDbOracle.start(scenario.schema, scenario.relationships));
    afterAll(async () => oracle?.close());

    it("agrees with the assertions and expected lookups", async () => {
      const spicedb = await db();
      const differs = scenario.spicedbDiffers;
      const used = new Set<string>();
      /** SpiceDB's recorded answer for a query where it differs, if it does. */
      const recorded = (query: string): { differs: boolean; answer?: unknown } => {
        if (!differs.has(query)) return { differs: false };
        used.add(query);
        return { differs: true, answer: differs.get(query) };
      };
      // SpiceDB's max-depth error is recorded as the evaluator's code for it.
      const outcome = async <T>(run: () => Promise<T>): Promise<T | string> => {
        try {
          return await run();
        } catch (error) {
          if (/max depth/i.test((error as Error).message)) return "max-depth-exceeded";
          // Another error is an answer only where recorded as SpiceDB's (an internal error of its own).
          return `error: ${(error as Error).message}`;
        }
      };
      /** SpiceDB's answer equals the recorded one; a recorded "error: <text>" is an error containing the text. */
      const expectRecorded = (got: unknown, want: unknown, query: string): void => {
        if (typeof want === "string" && want.startsWith("error:")) expect(String(got), query).toContain(want.slice("error:".length).trim());
        else expect(got, query).toEqual(want);
      };
      const answer = async (text: string): Promise<boolean | "max-depth"> => {
        const c = parseCheck(text);
        try {
          return await spicedb.check(c.resource, c.permission, c.subject);
        } catch (error) {
          if (scenario.spicedbMayError.includes(text) && /max depth/.test((error as Error).message)) return "max-depth";
          throw error;
        }
      };
      const assertCheck = async (text: string, expected: boolean): Promise<void> => {
        const r = recorded(`check ${text}`);
        if (r.differs) {
          const c = parseCheck(text);
          expectRecorded(await outcome(() => spicedb.check(c.resource, c.permission, c.subject)), r.answer, `SpiceDB's recorded answer to ${text}`);
          return;
        }
        expect([expected, "max-depth"].slice(0, scenario.spicedbMayError.includes(text) ? 2 : 1), text).toContain(await answer(text));
      };
      for (const text of scenario.assertTrue) await assertCheck(text, true);
      for (const text of scenario.assertFalse) await assertCheck(text, false);
      for (const { check: text } of scenario.assertErrors) {
        const c = parseCheck(text);
        const r = recorded(`check ${text}`);
        if (r.differs) {
          expectRecorded(await outcome(() => spicedb.check(c.resource, c.permission, c.subject)), r.answer, `SpiceDB's recorded answer to ${text}`);
          continue;
        }
        const asked = spicedb.check(c.resource, c.permission, c.subject);
        if (scenario.spicedbMayAnswer.includes(text)) {
          // A race inside SpiceDB: it refuses with max depth in most runs and answers in others.
          const result = await asked.then(
            (allowed) => allowed,
            (error: Error) => (/max depth/.test(error.message) ? "max-depth" : error.message),
          );
          expect([true, false, "max-depth"], text).toContain(result);
        } else await expect(asked, text).rejects.toThrow();
      }
      for (const l of scenario.lookupResources) {
        const query = `lookupResources ${l.resourceType}#${l.permission}@${l.subject}`;
        const r = recorded(query);
        expectRecorded(await outcome(() => spicedb.lookupResources(l.resourceType, l.permission, parseSubject(l.subject))), r.differs ? r.answer : l.expected, query);
      }
      for (const l of scenario.lookupSubjects) {
        const query = `lookupSubjects ${l.resource}#${l.permission}@${l.subjectType}${l.subjectRelation ? `#${l.subjectRelation}` : ""}`;
        const r = recorded(query);
        expectRecorded(await outcome(() => spicedb.lookupSubjects(parseObject(l.resource), l.permission, l.subjectType, l.subjectRelation)), r.differs ? r.answer : l.expected, query);
      }
      // Every recorded difference names a query of the scenario.
      expect([...differs.keys()].filter((q) => !used.has(q))).toEqual([]);
    });
  });
}
