#!/usr/bin/env node
// The `gatehouse` operator CLI. Each sub-command lives in src/commands/<name>.ts and
// registers itself through src/commands/index.ts.
import { buildProgram } from "./program.js";

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
  });
