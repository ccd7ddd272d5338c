#!/usr/bin/env node
// The `gatehouse` operator CLI. Each sub-command lives in src/commands/<name>.ts and
// registers itself through src/commands/index.ts.
// Exit codes: 0 success (and --help, --version), 1 a runtime failure, 2 a usage error.
import { CommanderError } from "commander";
import { buildProgram, EXIT_FAILURE, EXIT_USAGE, isUsageError, USAGE_HINT } from "./program.js";

buildProgram()
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
