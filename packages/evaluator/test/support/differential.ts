// One seed of the random-schema differential: the schema verdict and every Check, LookupResources
// and LookupSubjects answer of the evaluator against SpiceDB's, errors included (an error is an
// answer too: "error:max-depth" on both sides agrees, an error against a boolean does not).
import { check, compileSchema, EvaluatorError, formatRelationship, lookupResources, lookupSubjects, RelationshipGraph, type ObjectRef, type SubjectRef } from "../../src/index.js";
import { describeHistory, historyDifferences, type HistoryDifference } from "./history.js";
import { randomSchemaCase, type RandomSchemaCase } from "./random-schemas.js";
import { Reference } from "./reference.js";
import { SpiceDbOracle } from "./spicedb-oracle.js";
import type { SpiceDbProcess } from "./spicedb-process.js";

export interface Disagreement {
  query: string;
  ours: string;
  spicedb: string;
}

export interface SeedResult {
  seed: number;
  chain: boolean;
  cyclic: boolean;
  /** "accepted" / "rejected" on both sides, or the side that accepted alone. */
  schema: "accepted" | "rejected" | "ours-only" | "spicedb-only";
  schemaMessages?: { ours: string; spicedb: string };
  compared: number;
  /** Queries SpiceDB did not answer within its deadline (excluded from `compared`). */
  timeouts: number;
  /**
   * Queries SpiceDB answered differently when asked again (re-asked only where it disagreed with us):
   * neither agreement nor disagreement, excluded from `compared`.
   */
  nondeterministic: Disagreement[];
  disagreements: Disagreement[];
  /** Answers that changed when the same graph had answered other queries first (must be none). */
  history: HistoryDifference[];
  /** Per query kind (check, lookupResources, lookupSubjects): answers compared, SpiceDB timeouts, nondeterministic answers. */
  kinds: Record<string, { compared: number; timeouts: number; nondeterministic: number; beyondSpiceDb: number }>;
  /**
   * Answers of ours that differ from the reference evaluator's (the least fixed point; a refusal
   * where it is defined counts unless it is the depth limit on a chain): must be none.
   */
  referenceDisagreements: Disagreement[];
  testCase: RandomSchemaCase;
}

const TIMEOUT = "timeout";
/** SpiceDB is re-asked this many times when its answer differs from ours. */
const RETRIES = 8;

/** An outcome as text: JSON of the answer, or `error:<kind>`. */
function ours(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    if (error instanceof EvaluatorError) return error.code === "max-depth-exceeded" ? "error:max-depth" : `error:${error.code}`;
    throw error;
  }
}

async function theirs(run: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await run());
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/max depth/i.test(message)) return "error:max-depth";
    // SpiceDB gave no answer in time (its own deadline or the oracle's): not comparable.
    if (/deadline ?exceeded|cancelled/i.test(message)) return TIMEOUT;
    return `error:${message.slice(0, 200)}`;
  }
}

/** Is there a cycle among the relationships' (object → subject object) edges? */
export function hasCycle(testCase: RandomSchemaCase): boolean {
  const edges = new Map<string, string[]>();
  for (const r of testCase.relationships) {
    const from = `${r.resourceType}:${r.resourceId}`;
    (edges.get(from) ?? edges.set(from, []).get(from)!).push(`${r.subjectType}:${r.subjectId}`);
  }
  const state = new Map<string, number>();
  const visit = (n: string): boolean => {
    const s = state.get(n);
    if (s === 1) return true;
    if (s === 2) return false;
    state.set(n, 1);
    for (const m of edges.get(n) ?? []) if (visit(m)) return true;
    state.set(n, 2);
    return false;
  };
  return [...edges.keys()].some(visit);
}

/** What a seed asks SpiceDB: the in-process oracle, or a `SpiceDbProcess` (per-call deadlines). */
interface Oracle {
  check(resource: ObjectRef, permission: string, subject: SubjectRef): Promise<boolean>;
  lookupResources(resourceType: string, permission: string, subject: SubjectRef): Promise<string[]>;
  lookupSubjects(resource: ObjectRef, permission: string, subjectType: string, subjectRelation?: string): Promise<unknown>;
}

/** SpiceDB's lookups on cyclic data (see runSeed). */
const CYCLIC_LOOKUP_DEADLINE_MS = 3000;

/** After this many SpiceDB timeouts, a seed's remaining queries are skipped (each would wait its deadline). */
const TIMEOUTS_PER_SEED = 3;

/**
 * One seed against SpiceDB: in-process by default; with `process`, SpiceDB runs in that child
 * process (a stalled call is killed at its deadline and the process restarted with the seed's data).
 */
export async function runSeed(seed: number, testCase = randomSchemaCase(seed), process?: SpiceDbProcess): Promise<SeedResult> {
  const base = {
    seed,
    chain: testCase.chain,
    cyclic: hasCycle(testCase),
    compared: 0,
    timeouts: 0,
    nondeterministic: [] as Disagreement[],
    disagreements: [] as Disagreement[],
    history: [] as HistoryDifference[],
    kinds: {} as SeedResult["kinds"],
    referenceDisagreements: [] as Disagreement[],
    testCase,
  };
  let graph: RelationshipGraph | undefined;
  let ourError = "";
  try {
    graph = new RelationshipGraph(compileSchema(testCase.schema));
    for (const r of testCase.relationships) graph.add(r);
  } catch (error) {
    graph = undefined;
    ourError = (error as Error).message;
  }
  let spicedb: Oracle | undefined;
  let inProcess: SpiceDbOracle | undefined;
  let theirError = "";
  try {
    if (process) {
      await process.load(testCase.schema, testCase.relationships);
      spicedb = process;
    } else {
      spicedb = inProcess = await SpiceDbOracle.start(testCase.schema, testCase.relationships);
      // On cyclic data SpiceDB's lookups can grow without bound; an unanswered one is counted as
      // not comparable (never a failure), so this deadline cannot fail a test on a slow machine.
      if (base.cyclic) inProcess.lookupDeadlineMs = CYCLIC_LOOKUP_DEADLINE_MS;
    }
  } catch (error) {
    theirError = (error as Error).message;
  }
  if (!graph || !spicedb) {
    await inProcess?.close();
    const schema = !graph && !spicedb ? "rejected" : graph ? "ours-only" : "spicedb-only";
    return { ...base, schema, ...(schema === "rejected" ? {} : { schemaMessages: { ours: ourError, spicedb: theirError } }) };
  }
  try {
    const disagreements: Disagreement[] = [];
    const nondeterministic: Disagreement[] = [];
    let compared = 0;
    let timeouts = 0;
    /** SpiceDB's answer, or TIMEOUT (also once the seed has had its share of timeouts). */
    const ask = async (run: () => Promise<unknown>): Promise<string> => {
      if (timeouts >= TIMEOUTS_PER_SEED) return TIMEOUT;
      return theirs(run);
    };
    const kinds: SeedResult["kinds"] = {};
    const reference = new Reference(graph.model, testCase.relationships);
    const referenceDisagreements: Disagreement[] = [];
    /**
     * Does our outcome equal the reference's? Its undefined must be our refusal; our depth refusal
     * passes on a chain (the reference has no depth limit).
     */
    const referenceAgrees = (query: string, mine: string, expected: unknown): boolean => {
      const wanted = expected === "undefined" ? "error:max-depth" : JSON.stringify(expected);
      if (mine === wanted || (mine === "error:max-depth" && testCase.chain)) return true;
      referenceDisagreements.push({ query, ours: mine, spicedb: `reference ${wanted}` });
      return false;
    };
    // On cyclic data SpiceDB races concurrent branches against the depth limit (and shares in-flight
    // identical dispatches across branches of different depth), so the same query may answer in one
    // run and fail in the next. A disagreement is re-asked: any other answer on a re-ask makes the
    // query nondeterministic in SpiceDB, counted apart and never as agreement.
    // Where SpiceDB refuses with max depth and we answer as the reference does, the answer is one
    // SpiceDB cannot give: counted apart (`beyondSpiceDb`), neither agreement nor disagreement.
    const compare = async (query: string, mine: string, run: () => Promise<unknown>, agreesWithReference: boolean): Promise<void> => {
      const kind = (kinds[query.slice(0, query.indexOf(" "))] ??= { compared: 0, timeouts: 0, nondeterministic: 0, beyondSpiceDb: 0 });
      const answer = await ask(run);
      const answers = new Set([answer]);
      for (let retry = 0; retry < RETRIES && answer !== mine && answer !== TIMEOUT; retry++) {
        const again = await ask(run);
        if (again !== TIMEOUT) answers.add(again);
      }
      if (answer === TIMEOUT) {
        timeouts++;
        kind.timeouts++;
      } else if (answers.size === 1 && answer === "error:max-depth" && !mine.startsWith("error:") && agreesWithReference) {
        kind.beyondSpiceDb++;
      } else if (answers.size > 1) {
        kind.nondeterministic++;
        nondeterministic.push({ query, ours: mine, spicedb: [...answers].join(" | ") });
      } else {
        compared++;
        kind.compared++;
        if (mine !== answer) disagreements.push({ query, ours: mine, spicedb: answer });
      }
    };
    const subjectText = (s: SubjectRef): string => (s.relation ? `${s.type}:${s.id}#${s.relation}` : `${s.type}:${s.id}`);
    for (const q of testCase.checks) {
      const query = `check ${q.resource.type}:${q.resource.id}#${q.permission}@${subjectText(q.subject)}`;
      const mine = ours(() => check(graph, q.resource, q.permission, q.subject));
      const agrees = referenceAgrees(query, mine, reference.check(q.resource, q.permission, q.subject));
      await compare(query, mine, () => spicedb.check(q.resource, q.permission, q.subject), agrees);
    }
    for (const l of testCase.lookups) {
      const query = `lookupResources ${l.resourceType}#${l.permission}@${subjectText(l.subject)}`;
      const mine = ours(() => lookupResources(graph, l.resourceType, l.permission, l.subject));
      const agrees = referenceAgrees(query, mine, reference.lookupResources(l.resourceType, l.permission, l.subject));
      await compare(query, mine, () => spicedb.lookupResources(l.resourceType, l.permission, l.subject), agrees);
    }
    for (const l of testCase.subjectLookups) {
      const query = `lookupSubjects ${l.resource.type}:${l.resource.id}#${l.permission}@${l.subjectType}${l.subjectRelation ? `#${l.subjectRelation}` : ""}`;
      const mine = ours(() => lookupSubjects(graph, l.resource, l.permission, l.subjectType, l.subjectRelation));
      // Compared with the reference as membership: every id of the type in the data, and one in none (the wildcard).
      const expected = reference.lookupSubjects(l.resource, l.permission, l.subjectType, l.subjectRelation, "unseen");
      let asMembers = mine;
      if (!mine.startsWith("error:") && expected !== "undefined") {
        const found = JSON.parse(mine) as { ids: string[]; wildcard: boolean; excluded: string[] };
        asMembers = JSON.stringify([...expected.keys()].map((id) => [id, found.ids.includes(id) || (found.wildcard && !found.excluded.includes(id))]));
      }
      const agrees = referenceAgrees(query, asMembers, expected === "undefined" ? expected : [...expected]);
      await compare(query, mine, () => spicedb.lookupSubjects(l.resource, l.permission, l.subjectType, l.subjectRelation), agrees);
    }
    // Once a query of this seed has flipped between max-depth and an answer in SpiceDB, its
    // max-depth is known to depend on which concurrent branch wins on this seed's data (a loaded
    // machine can make the same one win nine times running): a max-depth against a definite
    // answer of ours is then no evidence either way, and counts as nondeterministic too.
    if (nondeterministic.some((d) => d.spicedb.split(" | ").includes("error:max-depth"))) {
      for (let i = disagreements.length - 1; i >= 0; i--) {
        const d = disagreements[i]!;
        if (d.spicedb !== "error:max-depth" || d.ours.startsWith("error:")) continue;
        disagreements.splice(i, 1);
        nondeterministic.push(d);
        compared--;
        const kind = kinds[d.query.slice(0, d.query.indexOf(" "))]!;
        kind.compared--;
        kind.nondeterministic++;
      }
    }
    // Every query again on a fresh graph and in a random order on one graph: the same answers.
    const history = historyDifferences(graph.model, testCase.relationships, testCase, seed, 1);
    return { ...base, schema: "accepted", compared, timeouts, nondeterministic, disagreements, history, kinds, referenceDisagreements };
  } finally {
    await inProcess?.close();
  }
}

/** A failing seed as text: schema, relationships and each disagreement. */
export function describeSeed(result: SeedResult): string {
  const lines = [`seed ${result.seed} (chain=${result.chain}, cyclic=${result.cyclic}, schema ${result.schema})`];
  if (result.schemaMessages) lines.push(`  ours: ${result.schemaMessages.ours}`, `  spicedb: ${result.schemaMessages.spicedb}`);
  for (const d of result.disagreements) lines.push(`  ${d.query}: ours ${d.ours}, spicedb ${d.spicedb}`);
  for (const d of result.nondeterministic) lines.push(`  ${d.query}: ours ${d.ours}, SpiceDB nondeterministic (${d.spicedb})`);
  for (const d of result.history) lines.push(`  history: ${describeHistory(d)}`);
  for (const d of result.referenceDisagreements) lines.push(`  ${d.query}: ours ${d.ours}, ${d.spicedb}`);
  if (result.schema !== "accepted" || result.disagreements.length > 0 || result.referenceDisagreements.length > 0 || result.nondeterministic.length > 0 || result.history.length > 0) {
    lines.push(result.testCase.schema, ...result.testCase.relationships.map(formatRelationship));
  }
  return lines.join("\n");
}
