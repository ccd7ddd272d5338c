import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { QueryInputError } from "./commands/query.js";
import { MigrationError } from "./migration/errors.js";

/** Exit code of a usage error (unknown command or option, missing argument or required option), as POSIX tools use. */
export const EXIT_USAGE = 2;
/** Exit code of a runtime failure (unreachable server, unreadable file, ...). */
export const EXIT_FAILURE = 1;
/** Printed after a usage error. */
export const USAGE_HINT = "(add --help for usage)";

/** Errors a command throws when its arguments are wrong in a way commander cannot see (malformed values, options that exclude each other). */
export function isUsageError(err: unknown): boolean {
  return err instanceof QueryInputError || (err instanceof MigrationError && err.code === "invalid-options");
}

// package.json sits one level above both src/ (run from source) and dist/ (built).
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

/**
 * Builds the CLI program; exported so tests can run commands in-process. Commander never exits the
 * process itself: it throws a CommanderError after printing help, the version or a usage error,
 * with exitCode 0 for help/version and EXIT_USAGE for usage errors; main.ts turns that into the exit code.
 */
export function buildProgram(): Command {
  const program = new Command()
    .name("gatehouse")
    .description("Gatehouse access management: local server, schema tools, v1->v2 migration")
    .version(version, "-V, --version", "print the version")
    .showHelpAfterError(USAGE_HINT)
    .exitOverride((err) => {
      throw err.exitCode === 0 ? err : new CommanderError(EXIT_USAGE, err.code, err.message);
    });
  for (const register of commands) register(program);
  return program;
}
