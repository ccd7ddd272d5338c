import { Command } from "commander";
import { commands } from "./commands/index.js";

/** Builds the CLI program; exported so tests can run commands in-process. */
export function buildProgram(): Command {
  const program = new Command()
    .name("gatehouse")
    .description("Gatehouse access management: local server, schema tools, v1->v2 migration")
    .showHelpAfterError()
    .exitOverride((err) => {
      // commander exits for --help/--version with code 0; keep its code otherwise.
      throw err;
    });
  for (const register of commands) register(program);
  return program;
}
