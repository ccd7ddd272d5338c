// Shared vitest settings: tests resolve workspace packages to their TypeScript
// sources (the "source" export condition), so no build is needed before testing.
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer } from "vitest/node";

/**
 * The files that take longest (`node scripts/slowest-tests.mjs --top 30` after `pnpm test`), in that
 * order. They start first in their package, so that a package does not end on one long file while
 * its other worker and the machine's other core have nothing left to do. Vitest orders files by
 * their last duration only once it has run them here; from a clean clone it starts the largest
 * files first, and these are small files driving long case lists.
 */
const LONGEST_FILES = [
  "apps/management-api/test/conformance.pglite.test.ts",
  "apps/management-api/test/conformance.pg.test.ts",
  "apps/authz-engine/test/connection-limits.test.ts",
  "loadtest/test/rehearsal.test.ts",
  "loadtest/test/bulk-parity.test.ts",
  "packages/store/test/data-dir-lock.test.ts",
  "packages/evaluator/test/reference-cyclic.test.ts",
  "packages/store/test/pglite-template.test.ts",
  "packages/evaluator/test/scenarios.test.ts",
  "packages/evaluator/test/differential.spicedb.test.ts",
  "packages/evaluator/test/differential-random-schemas.spicedb.test.ts",
  "apps/management-api/test/fuzz-http.test.ts",
  "apps/gatehouse/test/console.e2e.test.ts",
];

class LongestFirstSequencer extends BaseSequencer {
  async sort(files) {
    const rank = (file) => {
      const at = LONGEST_FILES.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at < 0 ? LONGEST_FILES.length : at;
    };
    // A stable sort: the rest keep vitest's order (last duration, else size).
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export const sharedConfig = defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // A bound for hung tests, never a speed check: tests wait on events and bound work by counts,
    // and on a machine loaded many times over (scripts/test-under-stress.sh) a correct test may take
    // minutes. Tests do not set smaller bounds of their own.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    // A worker runs its files one after another and they share its loaded modules (the sources,
    // gRPC, PGlite's WebAssembly): importing them again for every file cost about 1.8 CPU seconds a
    // file (five small management-api files: 27.7 CPU s with a process per file, 18.7 s
    // sharing one). Tests keep no state between files (each opens its own servers and stores); what a
    // file may leave in the process is reset by the setup file.
    isolate: false,
    // Two files at a time even on two cores (vitest's default there is one): tests wait on servers,
    // databases and child processes, and a package's last files no longer run one by one while the
    // other core is idle. Files never share a schema, a port or a directory.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirstSequencer },
    setupFiles: [fileURLToPath(new URL("./scripts/vitest-file-setup.mjs", import.meta.url))],
    // Each package's file times go to .test-durations/ (scripts/slowest-tests.mjs ranks them).
    reporters: ["default", fileURLToPath(new URL("./scripts/test-durations-reporter.mjs", import.meta.url))],
    // In-memory PGlite stores start from one copy of an empty cluster instead of each running
    // initdb (packages/store/src/db/pglite.ts): the same database, for a third of the CPU.
    env: { GATEHOUSE_PGLITE_TEMPLATE_DIR: process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR ?? join(tmpdir(), "gatehouse-test-pglite") },
  },
});
