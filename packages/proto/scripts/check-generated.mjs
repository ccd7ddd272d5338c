// Regenerates the ts-proto output into a temporary directory and fails when it differs from the
// committed src/gen, so stale generated code cannot be merged.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { writeDescriptors } from "./write-descriptors.mjs";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const committedDir = join(packageDir, "src", "gen");
const freshDir = mkdtempSync(join(tmpdir(), "proto-gen-"));

function listFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(root, full));
    }
  };
  walk(root);
  return out.sort();
}

try {
  const buf = join(packageDir, "node_modules", ".bin", "buf");
  execFileSync(buf, ["generate", "--output", freshDir], { cwd: packageDir, stdio: "inherit" });
  // buf writes to <output>/<plugin out>, i.e. <freshDir>/src/gen.
  const freshGen = join(freshDir, "src", "gen");
  writeDescriptors(freshGen);
  const committed = listFiles(committedDir);
  const fresh = listFiles(freshGen);
  const problems = [];
  for (const file of new Set([...committed, ...fresh])) {
    if (!committed.includes(file)) problems.push(`missing from src/gen: ${file}`);
    else if (!fresh.includes(file)) problems.push(`no longer generated: ${file}`);
    else if (readFileSync(join(committedDir, file), "utf8") !== readFileSync(join(freshGen, file), "utf8")) {
      problems.push(`stale: ${file}`);
    }
  }
  if (problems.length > 0) {
    console.error(`src/gen is out of date; run \`pnpm --filter @gatehouse/proto generate\`:\n  ${problems.join("\n  ")}`);
    process.exitCode = 1;
  } else {
    console.log(`src/gen is up to date (${committed.length} files)`);
  }
} finally {
  rmSync(freshDir, { recursive: true, force: true });
}
