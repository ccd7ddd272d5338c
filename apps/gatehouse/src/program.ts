import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";

/** Exit code of a usage error (unknown command or option, missing argument or required option), as POSIX tools use. */
export const EXIT_USAGE = 2;

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
    .showHelpAfterError("(add --help for usage)")
    .exitOverride((err) => {
      throw err.exitCode === 0 ? err : new CommanderError(EXIT_USAGE, err.code, err.message);
    });
  for (const register of commands) register(program);
  return program;
}
