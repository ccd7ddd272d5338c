#!/usr/bin/env node
// The `gatehouse` operator CLI. Each sub-command lives in src/commands/<name>.ts and
// registers itself through src/commands/index.ts.
// Exit codes: 0 success (and --help, --version), 1 a runtime failure, 2 a usage error.
// `start` holds the engine's graph: it restarts itself once with glibc's huge pages when they are
// not set (GLIBC_TUNABLES is read only at process start; GATEHOUSE_HUGE_PAGES=false opts out).
import { relaunchWithHugePages } from "@gatehouse/config";

if (process.argv[2] !== "start" || !relaunchWithHugePages()) await run();

async function run(): Promise<void> {
  const { CommanderError } = await import("commander");
  const { buildProgram, EXIT_FAILURE, EXIT_USAGE, isUsageError, USAGE_HINT } = await import("./program.js");
  await buildProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      // Commander has already printed the help, the version or the usage error.
      if (err instanceof CommanderError) {
        process.exitCode = err.exitCode;
        return;
      }
      if (isUsageError(err)) {
        console.error(`error: ${(err as Error).message}\n${USAGE_HINT}`);
        process.exitCode = EXIT_USAGE;
        return;
      }
      console.error(err instanceof Error ? err.message : String(err));
      process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : EXIT_FAILURE;
    });
}
