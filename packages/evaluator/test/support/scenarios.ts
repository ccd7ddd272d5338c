// Loader for the scenario files in test/scenarios: schema + relationships + assertions + expected lookups.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRelationship, type ObjectRef, type Relationship, type SubjectRef } from "../../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
/** The public rbac-config fixtures carried in the repository (fixtures/README.md). */
export const fixturesDir = join(here, "../../../..", "fixtures/rbac-config");
const scenariosDir = join(here, "../scenarios");

export interface Scenario {
  name: string;
  description: string;
  schema: string;
  relationships: Relationship[];
  assertTrue: string[];
  assertFalse: string[];
  assertErrors: Array<{ check: string; code: string }>;
  /** Assertions SpiceDB answers in some runs and refuses with max depth in others (branches racing a cycle). */
  spicedbMayError: string[];
  /**
   * Error assertions SpiceDB refuses in most runs and answers in others: a shared dispatch racing a
   * path that would decide. The evaluator gives the usual verdict, the error, every time.
   */
  spicedbMayAnswer: string[];
  /** `expected` is the answer, or the error code SpiceDB's error maps to ("max-depth-exceeded"). */
  lookupResources: Array<{ resourceType: string; permission: string; subject: string; expected: string[] | string }>;
  lookupSubjects: Array<{
    resource: string;
    permission: string;
    subjectType: string;
    subjectRelation?: string;
    expected: { ids: string[]; wildcard: boolean; excluded: string[] } | string;
  }>;
  /** Data with cycles or chains near the depth limit: lookupResources may refuse with max-depth-exceeded where Check answers, as SpiceDB's does. */
  deepData: boolean;
  explain: Array<{ check: string; allowed: boolean; summaryIncludes: string[] }>;
  /**
   * Where SpiceDB answers differently from the evaluator (its defects and self-disagreements), keyed
   * by the query as written in the assertions: `check <resource#permission@subject>`,
   * `lookupResources <type#permission@subject>` or `lookupSubjects <object#permission@type[#relation]>`.
   * The value is SpiceDB's answer (a max-depth error as "max-depth-exceeded"); the SpiceDB runner
   * requires exactly that answer, so a SpiceDB that changes its answer fails the scenario.
   */
  spicedbDiffers: Map<string, unknown>;
}

/** A relationship in a scenario file: its text, or the text with an expiry (ISO time). */
type ScenarioRelationship = string | { relationship: string; expiresAt: string };

function readRelationship(raw: ScenarioRelationship): Relationship {
  if (typeof raw === "string") return parseRelationship(raw);
  const expiresAt = Date.parse(raw.expiresAt);
  if (Number.isNaN(expiresAt)) throw new Error(`bad expiresAt ${raw.expiresAt}`);
  return { ...parseRelationship(raw.relationship), expiresAt };
}

export function loadScenarios(): Scenario[] {
  return readdirSync(scenariosDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(scenariosDir, file), "utf8"));
      const schema: string = raw.schemaFile ? readFileSync(join(fixturesDir, raw.schemaFile), "utf8") : raw.schema.join("\n");
      return {
        name: file.replace(/\.json$/, ""),
        description: raw.description ?? "",
        schema,
        relationships: ((raw.relationships ?? []) as ScenarioRelationship[]).map(readRelationship),
        assertTrue: raw.assertTrue ?? [],
        assertFalse: raw.assertFalse ?? [],
        assertErrors: raw.assertErrors ?? [],
        spicedbMayError: raw.spicedbMayError ?? [],
        spicedbMayAnswer: raw.spicedbMayAnswer ?? [],
        lookupResources: raw.lookupResources ?? [],
        lookupSubjects: raw.lookupSubjects ?? [],
        explain: raw.explain ?? [],
        deepData: raw.deepData === true,
        spicedbDiffers: new Map(((raw.spicedbDiffers ?? []) as Array<{ query: string; spicedb: unknown }>).map((d) => [d.query, d.spicedb])),
      };
    });
}

/** "type:id#permission@subjtype:subjid[#rel]" → the three parts of a check. */
export function parseCheck(text: string): { resource: ObjectRef; permission: string; subject: SubjectRef } {
  const r = parseRelationship(text);
  const subject: SubjectRef = { type: r.subjectType, id: r.subjectId };
  if (r.subjectRelation) subject.relation = r.subjectRelation;
  return { resource: { type: r.resourceType, id: r.resourceId }, permission: r.relation, subject };
}

/** "type:id[#rel]" → a subject. */
export function parseSubject(text: string): SubjectRef {
  const m = /^([^:]+):([^#]+)(?:#(.+))?$/.exec(text);
  if (!m) throw new Error(`bad subject ${text}`);
  return m[3] ? { type: m[1]!, id: m[2]!, relation: m[3] } : { type: m[1]!, id: m[2]! };
}

/** "type:id" → an object. */
export function parseObject(text: string): ObjectRef {
  const at = text.indexOf(":");
  return { type: text.slice(0, at), id: text.slice(at + 1) };
}
