// Long random-schema differential against SpiceDB (`pnpm --filter @gatehouse/evaluator differential`).
// DIFF_SEEDS (default 300) seeds from DIFF_FIRST (default 1); DIFF_VERBOSE=1 prints each failing seed;
// DIFF_CALL_MS (default 5000) is the deadline of one SpiceDB call: SpiceDB runs in a child process,
// killed and restarted with the seed's data when a call overruns it (its Check cannot be cancelled);
// DIFF_BUDGET_S (default 3600) stops starting seeds after that many seconds. One progress line per
// seed on stderr, then a summary table. Every query is also asked on a fresh graph and in a random
// order on one graph (history independence). Exits non-zero on any disagreement, schema verdicts and
// history differences included. DIFF_SEEDS=50 nice -n 10 … for a short run on a busy machine.
import { describeSeed, runSeed, type SeedResult } from "../test/support/differential.js";
import { SpiceDbProcess } from "../test/support/spicedb-process.js";

const first = Number(process.env.DIFF_FIRST ?? 1);
const count = Number(process.env.DIFF_SEEDS ?? 300);
const verbose = process.env.DIFF_VERBOSE === "1";
const budgetMs = Number(process.env.DIFF_BUDGET_S ?? 3600) * 1000;
const spicedb = new SpiceDbProcess(Number(process.env.DIFF_CALL_MS ?? 5000));
const started = Date.now();

const results: SeedResult[] = [];
// Stopped early (Ctrl-C, a timeout): still print the summary of the seeds finished.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    report();
    spicedb.close();
    process.exit(1);
  });
}
for (let seed = first; seed < first + count && Date.now() - started < budgetMs; seed++) {
  const t0 = Date.now();
  const restarts = spicedb.restarts;
  const result = await runSeed(seed, undefined, spicedb);
  results.push(result);
  const shape = `${result.cyclic ? "cyclic" : "acyclic"}${result.chain ? "+chain" : ""}`;
  console.error(
    `seed ${seed} (${results.length}/${count}) ${shape} schema ${result.schema}: ${result.compared} compared, ` +
      `${result.disagreements.length} disagree, ${result.history.length} history, ${result.nondeterministic.length} SpiceDB nondeterministic, ${result.timeouts} timeouts, ${spicedb.restarts - restarts} restarts, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  if (verbose && (failed(result) || result.nondeterministic.length > 0)) console.log(describeSeed(result));
}

report();
spicedb.close();
process.exit(results.some(failed) ? 1 : 0);

function failed(r: SeedResult): boolean {
  return r.schema === "ours-only" || r.schema === "spicedb-only" || r.disagreements.length > 0 || r.history.length > 0 || r.referenceDisagreements.length > 0;
}

function report(): void {
  const accepted = results.filter((r) => r.schema === "accepted");
  const n = (f: (r: SeedResult) => boolean): number => results.filter(f).length;
  console.log(`seeds ${first}..${first + results.length - 1} in ${((Date.now() - started) / 1000).toFixed(0)} s, ${spicedb.restarts} SpiceDB restarts`);
  console.log(
    `schema verdicts: ${accepted.length} accepted by both, ${n((r) => r.schema === "rejected")} rejected by both, ` +
      `${n((r) => r.schema === "ours-only")} accepted only here, ${n((r) => r.schema === "spicedb-only")} accepted only by SpiceDB`,
  );
  const rows: Array<[string, SeedResult[]]> = [
    ["all", accepted],
    ["acyclic, no chain", accepted.filter((r) => !r.cyclic && !r.chain)],
    ["cyclic or chain", accepted.filter((r) => r.cyclic || r.chain)],
  ];
  console.log("| seeds | kind | queries | agree | disagree | answered here, SpiceDB refuses (reference agrees) | SpiceDB timeouts | SpiceDB nondeterministic | differ from the reference |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const [label, rs] of rows) {
    for (const kind of ["check", "lookupResources", "lookupSubjects"]) {
      const compared = rs.reduce((t, r) => t + (r.kinds[kind]?.compared ?? 0), 0);
      const timeouts = rs.reduce((t, r) => t + (r.kinds[kind]?.timeouts ?? 0), 0);
      const disagree = rs.reduce((t, r) => t + r.disagreements.filter((d) => d.query.startsWith(`${kind} `)).length, 0);
      const nondeterministic = rs.reduce((t, r) => t + (r.kinds[kind]?.nondeterministic ?? 0), 0);
      const beyond = rs.reduce((t, r) => t + (r.kinds[kind]?.beyondSpiceDb ?? 0), 0);
      const offReference = rs.reduce((t, r) => t + r.referenceDisagreements.filter((d) => d.query.startsWith(`${kind} `)).length, 0);
      console.log(
        `| ${label} (${rs.length}) | ${kind} | ${compared + timeouts + nondeterministic + beyond} | ${compared - disagree} | ${disagree} | ${beyond} | ${timeouts} | ${nondeterministic} | ${offReference} |`,
      );
    }
  }
  const shape = (r: SeedResult): string => `${r.cyclic ? "cyclic" : "acyclic"}${r.chain ? "+chain" : ""}`;
  console.log(
    `seeds disagreeing with SpiceDB: ${n((r) => r.disagreements.length > 0)} (${[...tally(accepted.filter((r) => r.disagreements.length > 0).map(shape))].map(([k, c]) => `${c} ${k}`).join(", ") || "none"})`,
  );
  console.log(`seeds whose answers depend on earlier queries: ${n((r) => r.history.length > 0)}; seeds where SpiceDB was nondeterministic: ${n((r) => r.nondeterministic.length > 0)}`);
  // Disagreements by kind of outcome (an answer against an error, and which error).
  const kinds = new Map<string, number>();
  for (const r of accepted)
    for (const d of r.disagreements) {
      const key = `${d.query.split(" ")[0]} ours=${d.ours.startsWith("error") ? d.ours : "answer"} spicedb=${d.spicedb.startsWith("error") ? d.spicedb : "answer"}`;
      kinds.set(key, (kinds.get(key) ?? 0) + 1);
    }
  for (const [k, c] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${c}\t${k}`);
}

function tally(keys: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}
