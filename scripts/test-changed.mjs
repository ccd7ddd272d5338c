// Runs the tests a change touches: the packages changed since <base> (default: where this branch
// left main) and the packages that depend on them (turbo's `...[base]` filter), and within each only
// the test files whose imports reach a changed file (vitest's `--changed`), committed or not.
//   node scripts/test-changed.mjs [base]      (pnpm test:changed [base])
import { execFileSync, spawnSync } from "node:child_process";

const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
const exists = (ref) => {
  try {
    git("rev-parse", "--verify", "--quiet", `${ref}^{commit}`);
    return true;
  } catch {
    return false;
  }
};
const given = process.argv[2];
const main = ["origin/main", "main"].find(exists);
const base = given ?? (main ? git("merge-base", "HEAD", main) : undefined);
if (!base) {
  console.error("No base to compare with: name one (pnpm test:changed <commit or branch>).");
  process.exit(2);
}
console.log(`Tests touched by the changes since ${given ?? `${main} (${base.slice(0, 10)})`}:`);
const run = spawnSync("pnpm", ["exec", "turbo", "run", "test", `--filter=...[${base}]`, "--concurrency=2", "--", "--changed", base, "--passWithNoTests"], { stdio: "inherit" });
spawnSync("node", ["scripts/slowest-tests.mjs"], { stdio: "inherit" });
process.exit(run.status ?? 1);
