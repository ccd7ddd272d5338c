// Shared vitest settings: tests resolve workspace packages to their TypeScript
// sources (the "source" export condition), so no build is needed before testing.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

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
    // A package's test files run one after another in the same worker and share its loaded modules
    // (the sources, gRPC, PGlite's WebAssembly): importing them again for every file cost about
    // 1.8 CPU seconds a file, a fifth of the suite. Tests keep no state between files (each opens its
    // own servers and stores); what a file may leave in the process is reset by the setup file.
    isolate: false,
    setupFiles: [fileURLToPath(new URL("./scripts/vitest-file-setup.mjs", import.meta.url))],
    // Each package's file times go to .test-durations/ (scripts/slowest-tests.mjs ranks them).
    reporters: ["default", fileURLToPath(new URL("./scripts/test-durations-reporter.mjs", import.meta.url))],
    // In-memory PGlite stores start from one copy of an empty cluster instead of each running
    // initdb (packages/store/src/db/pglite.ts): the same database, for a third of the CPU.
    env: { GATEHOUSE_PGLITE_TEMPLATE_DIR: process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR ?? join(tmpdir(), "gatehouse-test-pglite") },
  },
});
