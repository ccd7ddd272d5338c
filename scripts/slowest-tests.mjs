// The slowest test files of the last run, across packages (scripts/test-durations-reporter.mjs
// writes them). `pnpm test` prints these at its end; `--reset` forgets earlier runs.
//   node scripts/slowest-tests.mjs [--top N] [--reset]
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DURATIONS_DIR } from "./test-durations-reporter.mjs";

const args = process.argv.slice(2);
if (args.includes("--reset")) {
  rmSync(DURATIONS_DIR, { recursive: true, force: true });
  process.exit(0);
}
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args[topAt + 1]) : 10;

let reports = [];
try {
  reports = readdirSync(DURATIONS_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(join(DURATIONS_DIR, f), "utf8")));
} catch {
  console.log("No test durations recorded (run the tests first).");
  process.exit(0);
}
const files = reports.flatMap((r) => r.files.map((f) => ({ ...f, package: r.package })));
const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
console.log(`\nSlowest ${Math.min(top, files.length)} of ${files.length} test files (time in the file's tests, hooks and imports; the machine's load counts):`);
for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, top)) {
  console.log(`${seconds(f.ms)} s  ${f.file}  (${f.tests} tests${f.state === "passed" ? "" : `, ${f.state}`})`);
}
console.log("\nPer package (sum of its files, each run of a file counted):");
const byPackage = new Map();
for (const f of files) {
  const p = byPackage.get(f.package) ?? { name: f.package, ms: 0, n: 0 };
  p.ms += f.ms;
  p.n += 1;
  byPackage.set(f.package, p);
}
const sums = [...byPackage.values()];
for (const p of sums.sort((a, b) => b.ms - a.ms)) console.log(`${seconds(p.ms)} s  ${p.name}  (${p.n} files)`);
