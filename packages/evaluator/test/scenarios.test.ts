import { describe, expect, it } from "vitest";
import { check, compileSchema, EvaluatorError, explain, lookupResources, lookupSubjects, RelationshipGraph } from "../src/index.js";
import { bruteForceLookup, subjectsOf } from "./support/brute-force.js";
import { Reference } from "./support/reference.js";
import { loadScenarios, parseCheck, parseObject, parseSubject } from "./support/scenarios.js";

/** The answer, or the code of the evaluator error thrown. */
function outcome<T>(run: () => T): T | string {
  try {
    return run();
  } catch (error) {
    if (error instanceof EvaluatorError) return error.code;
    throw error;
  }
}

for (const scenario of loadScenarios()) {
  describe(`scenario ${scenario.name}`, () => {
    const graph = new RelationshipGraph(compileSchema(scenario.schema));
    for (const r of scenario.relationships) graph.add(r);

    it("assertions", () => {
      for (const text of scenario.assertTrue) {
        const c = parseCheck(text);
        expect(check(graph, c.resource, c.permission, c.subject), text).toBe(true);
      }
      for (const text of scenario.assertFalse) {
        const c = parseCheck(text);
        expect(check(graph, c.resource, c.permission, c.subject), text).toBe(false);
      }
      for (const { check: text, code } of scenario.assertErrors) {
        const c = parseCheck(text);
        let error: unknown;
        try {
          check(graph, c.resource, c.permission, c.subject);
        } catch (e) {
          error = e;
        }
        expect(error, text).toBeInstanceOf(EvaluatorError);
        expect((error as EvaluatorError).code, text).toBe(code);
      }
    });

    it("expected lookups", () => {
      for (const l of scenario.lookupResources) {
        expect(
          outcome(() => lookupResources(graph, l.resourceType, l.permission, parseSubject(l.subject))),
          JSON.stringify(l),
        ).toEqual(l.expected);
      }
      for (const l of scenario.lookupSubjects) {
        expect(
          outcome(() => lookupSubjects(graph, parseObject(l.resource), l.permission, l.subjectType, l.subjectRelation)),
          JSON.stringify(l),
        ).toEqual(l.expected);
      }
    });

    it("agrees with the reference evaluator (the least fixed point): refuses only where it is undefined or the chain is too deep", () => {
      const reference = new Reference(graph.model, scenario.relationships);
      for (const text of [...scenario.assertTrue, ...scenario.assertFalse]) {
        const c = parseCheck(text);
        expect(reference.check(c.resource, c.permission, c.subject), text).toBe(scenario.assertTrue.includes(text));
      }
      for (const { check: text, code } of scenario.assertErrors) {
        if (code !== "max-depth-exceeded") continue;
        const c = parseCheck(text);
        let message = "";
        try {
          check(graph, c.resource, c.permission, c.subject);
        } catch (error) {
          message = (error as Error).message;
        }
        // A cycle through exclusion is the reference's undefined; any other refusal is the depth limit, on deep data only.
        if (/subtracted side/.test(message)) expect(reference.check(c.resource, c.permission, c.subject), text).toBe("undefined");
        else expect(scenario.deepData, text).toBe(true);
      }
      for (const l of scenario.lookupResources) {
        if (typeof l.expected === "string") continue;
        expect(reference.lookupResources(l.resourceType, l.permission, parseSubject(l.subject)), JSON.stringify(l)).toEqual(l.expected);
      }
    });

    it("explanations", () => {
      for (const e of scenario.explain) {
        const c = parseCheck(e.check);
        const result = explain(graph, c.resource, c.permission, c.subject);
        expect(result.allowed, e.check).toBe(e.allowed);
        for (const part of e.summaryIncludes) expect(result.summary, e.check).toContain(part);
      }
    });

    it("each answer recorded as SpiceDB's differs from the evaluator's", () => {
      for (const [query, spicedb] of scenario.spicedbDiffers) {
        const space = query.indexOf(" ");
        const kind = query.slice(0, space);
        const text = query.slice(space + 1);
        const at = text.lastIndexOf("@");
        let ours: unknown;
        if (kind === "check") {
          const c = parseCheck(text);
          ours = outcome(() => check(graph, c.resource, c.permission, c.subject));
        } else if (kind === "lookupResources") {
          const [type, permission] = text.slice(0, at).split("#");
          ours = outcome(() => lookupResources(graph, type!, permission!, parseSubject(text.slice(at + 1))));
        } else if (kind === "lookupSubjects") {
          const [object, permission] = text.slice(0, at).split("#");
          const [subjectType, subjectRelation] = text.slice(at + 1).split("#");
          ours = outcome(() => lookupSubjects(graph, parseObject(object!), permission!, subjectType!, subjectRelation));
        } else throw new Error(`unknown query kind in ${query}`);
        expect(ours, query).not.toEqual(spicedb);
      }
    });

    it("lookupResources equals brute-force Check over all objects, for every permission and subject", () => {
      const { model } = graph;
      let compared = 0;
      for (const subject of subjectsOf(graph)) {
        for (const [type, definition] of model.definitions) {
          if (graph.objectIds(definition.index).length === 0) continue;
          for (const name of [...definition.permissions.keys(), ...definition.relations.keys()]) {
            const expected = bruteForceLookup(graph, type, name, subject);
            if (expected === undefined) continue;
            const found = outcome(() => lookupResources(graph, type, name, subject));
            // On deep data the lookup may refuse (SpiceDB's reverse dispatch meets the cycle); when it answers, it agrees.
            if (found === "max-depth-exceeded" && scenario.deepData) continue;
            expect(found, `${type}#${name} for ${JSON.stringify(subject)}`).toEqual(expected);
            compared++;
          }
        }
      }
      if (scenario.assertErrors.length === 0) expect(compared).toBeGreaterThan(0);
    });
  });
}
