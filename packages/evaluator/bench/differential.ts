// Long random-schema differential against SpiceDB (`pnpm --filter @gatehouse/evaluator differential`).
// DIFF_SEEDS (default 300) seeds from DIFF_FIRST (default 1); DIFF_VERBOSE=1 prints each failing seed.
// Exits non-zero on any disagreement, schema verdicts included.
import { describeSeed, runSeed, type SeedResult } from "../test/support/differential.js";

const first = Number(process.env.DIFF_FIRST ?? 1);
const count = Number(process.env.DIFF_SEEDS ?? 300);
const verbose = process.env.DIFF_VERBOSE === "1";
/** Stop starting new seeds after this many seconds (SpiceDB's own timeouts can make a seed slow). */
const budgetMs = Number(process.env.DIFF_BUDGET_S ?? 1200) * 1000;
const started = Date.now();

const results: SeedResult[] = [];
// Stopped early (Ctrl-C, a timeout): still print the summary of the seeds finished.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    report();
    process.exit(1);
  });
}
for (let seed = first; seed < first + count && Date.now() - started < budgetMs; seed++) {
  if (verbose) console.error(`seed ${seed}`);
  const result = await runSeed(seed);
  results.push(result);
  if (verbose && (result.schema === "ours-only" || result.schema === "spicedb-only" || result.disagreements.length > 0)) console.log(describeSeed(result));
}

report();
const failed = results.some((r) => r.schema === "ours-only" || r.schema === "spicedb-only" || r.disagreements.length > 0);
process.exit(failed ? 1 : 0);

function report(): void {
  const accepted = results.filter((r) => r.schema === "accepted");
  const summary = (label: string, rs: SeedResult[]): string => {
    const bad = rs.filter((r) => r.disagreements.length > 0);
    const answers = rs.reduce((n, r) => n + r.disagreements.length, 0);
    const compared = rs.reduce((n, r) => n + r.compared, 0);
    const timeouts = rs.reduce((n, r) => n + r.timeouts, 0);
    const racy = rs.reduce((n, r) => n + r.racy, 0);
    return `${label}: ${rs.length} seeds, ${bad.length} with disagreements, ${answers} of ${compared} answers disagree (${racy} agreed only on a SpiceDB retry, ${timeouts} SpiceDB timeouts not compared)`;
  };
  console.log(`seeds ${first}..${first + results.length - 1}`);
  console.log(`schema verdicts: ${accepted.length} accepted by both, ${results.filter((r) => r.schema === "rejected").length} rejected by both, ` +
    `${results.filter((r) => r.schema === "ours-only").length} accepted only here, ${results.filter((r) => r.schema === "spicedb-only").length} accepted only by SpiceDB`);
  console.log(summary("all", accepted));
  console.log(summary("acyclic, no chain", accepted.filter((r) => !r.cyclic && !r.chain)));
  console.log(summary("cyclic or chain", accepted.filter((r) => r.cyclic || r.chain)));
  const kinds = new Map<string, number>();
  for (const r of accepted) for (const d of r.disagreements) {
    const key = `${d.query.split(" ")[0]} ours=${d.ours.startsWith("error") ? d.ours : "answer"} spicedb=${d.spicedb.startsWith("error") ? d.spicedb : "answer"}`;
    kinds.set(key, (kinds.get(key) ?? 0) + 1);
  }
  for (const [k, n] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${n}\t${k}`);
}
