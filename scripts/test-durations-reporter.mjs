// A vitest reporter (vitest.shared.mjs) that records each test file's time in
// .test-durations/<package>.<run>.json, for scripts/slowest-tests.mjs to rank across packages. A
// package whose test command runs vitest more than once (the engine's suites again on two threads)
// keeps one record per set of files run, so the second run does not replace the first.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DURATIONS_DIR = join(root, ".test-durations");

export default class TestDurationsReporter {
  onInit(vitest) {
    this.dir = vitest.config.root;
  }

  onTestRunEnd(testModules) {
    if (testModules.length === 0) return;
    const files = testModules.map((m) => {
      const d = m.diagnostic();
      return {
        // A file run by two projects (the engine's suites again on two threads) is told apart by the project's name.
        file: relative(root, m.moduleId) + (m.project.name ? ` [${m.project.name}]` : ""),
        // Time spent in the file's tests and hooks, and its import and setup before them.
        ms: Math.round(d.duration + d.collectDuration + d.setupDuration + d.prepareDuration),
        tests: [...m.children.allTests()].length,
        state: m.state(),
      };
    });
    let name = basename(this.dir);
    try {
      name = JSON.parse(readFileSync(join(this.dir, "package.json"), "utf8")).name ?? name;
    } catch {}
    mkdirSync(DURATIONS_DIR, { recursive: true });
    const run = createHash("sha256")
      .update(
        files
          .map((f) => f.file)
          .sort()
          .join("\n"),
      )
      .digest("hex")
      .slice(0, 8);
    const out = join(DURATIONS_DIR, `${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.${run}.json`);
    writeFileSync(out, `${JSON.stringify({ package: name, finishedAt: new Date().toISOString(), files }, null, 1)}\n`);
  }
}
