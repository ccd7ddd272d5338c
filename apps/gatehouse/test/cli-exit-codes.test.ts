// The CLI as a shell sees it. Help and --version exit 0 and print only what was asked for; usage
// errors are printed once and exit 2; runtime failures exit 1; nothing prints a stack trace.
// A few representative runs are real child processes started from source (they prove the exit codes
// main.ts sets); the wider matrix runs the same program in-process, where commander's outcome is the
// CommanderError that main.ts maps to the exit code.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CommanderError } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram, EXIT_USAGE, isUsageError } from "../src/program.js";
import { captureOutput } from "./support/capture-output.js";

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { version } = JSON.parse(readFileSync(path.join(appDir, "package.json"), "utf8")) as { version: string };

interface Exit {
  code: number;
  out: string;
  err: string;
}

function gatehouse(...args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", ...args], { cwd: appDir, env: { ...process.env, LOG_LEVEL: "error" } }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? -1) : 0, out, err }),
    );
  });
}

const occurrences = (text: string, part: string): number => text.split(part).length - 1;
const noStackTrace = (text: string): void => expect(text).not.toMatch(/^\s+at .+[:(]/m);

const HELP = "Usage: gatehouse [options] [command]";
const unreachableCheck = ["check", "--target", "127.0.0.1:1", "--object", "rbac/workspace:1", "--relation", "view", "--subject", "alice", "--json"];

describe("gatehouse as a child process", () => {
  // Started together: each run spends seconds loading TypeScript sources, not waiting on one another.
  // No deadline on a run: on a loaded machine loading the sources alone can take minutes (the
  // suite's hook timeout is the bound for a hung run).
  const runs: Record<string, Exit> = {};
  const argv: Record<string, string[]> = {
    help: ["--help"],
    subHelp: ["schema", "build", "--help"],
    version: ["--version"],
    unknownCommand: ["bogus"],
    missingOption: ["check", "--relation", "view", "--subject", "alice"],
    // Commander accepts the value; the command finds it malformed before calling anyone.
    badValue: ["check", "--target", "127.0.0.1:1", "--object", "workspace:1", "--relation", "view", "--subject", "alice"],
    // Port 1 refuses connections at once.
    unreachable: unreachableCheck,
  };
  beforeAll(async () => {
    await Promise.all(Object.entries(argv).map(async ([name, args]) => (runs[name] = await gatehouse(...args))));
  });

  it("--help and <command> --help print the help once on stdout and exit 0", () => {
    expect(runs.help!.code).toBe(0);
    expect(runs.help!.out.startsWith(HELP)).toBe(true);
    expect(occurrences(runs.help!.out, "Usage:")).toBe(1);
    expect(runs.help!.err).toBe("");
    expect(runs.subHelp!.code).toBe(0);
    expect(runs.subHelp!.out.startsWith("Usage: gatehouse schema build [options] [files...]")).toBe(true);
    expect(runs.subHelp!.err).toBe("");
  });

  it("--version prints the package version and exits 0", () => {
    expect(runs.version).toEqual({ code: 0, out: `${version}\n`, err: "" });
  });

  it("usage errors are printed once on stderr and exit 2", () => {
    for (const [run, message] of [
      [runs.unknownCommand!, "error: unknown command 'bogus'"],
      [runs.missingOption!, "error: required option '--object <ref>' not specified"],
      [runs.badValue!, "error: 'workspace:1' is not '<reporter>/<type>:<id>'"],
    ] as const) {
      expect(run.code).toBe(2);
      expect(run.out).toBe("");
      expect(occurrences(run.err, message)).toBe(1);
      expect(run.err).toContain("--help");
      noStackTrace(run.err);
    }
  });

  it("a runtime failure exits 1 with one line naming the problem", () => {
    const run = runs.unreachable!;
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    // One whole sentence naming the address, the cause and what to do (not grpc-js's cut-off text).
    expect(run.err.trim()).toBe("cannot reach the authz-engine at 127.0.0.1:1 (ECONNREFUSED): is it running? Start it with 'pnpm start', or pass --target <host:port>.");
    noStackTrace(run.err);
  });
});

describe("gatehouse outcomes in-process", () => {
  const output = captureOutput();
  /** The exit code main.ts would set: commander's error code, or 1 for anything else thrown, or process.exitCode. */
  async function exitOf(...args: string[]): Promise<number> {
    try {
      await buildProgram().parseAsync(["node", "gatehouse", ...args]);
      return Number(process.exitCode ?? 0);
    } catch (e) {
      return e instanceof CommanderError ? e.exitCode : 1;
    }
  }

  it.each([
    [["-h"], HELP],
    [["help"], HELP],
    [["check", "--help"], "Usage: gatehouse check [options]"],
    [["help", "list"], "Usage: gatehouse list [options]"],
    [["schema", "--help"], "Usage: gatehouse schema [options] [command]"],
    [["schema", "check", "--help"], "Usage: gatehouse schema check [options] [files...]"],
    [["migrate", "--help"], "Usage: gatehouse migrate"],
    [["parity", "--help"], "Usage: gatehouse parity"],
    [["start", "--help"], "Usage: gatehouse start"],
  ])("%j prints the help once on stdout and exits 0", async (args, usage) => {
    expect(await exitOf(...args)).toBe(0);
    expect(output.out.startsWith(usage)).toBe(true);
    expect(occurrences(output.out, "Usage:")).toBe(1);
    expect(output.err).toBe("");
  });

  it("commands' own argument errors count as usage errors; failures of the work do not", async () => {
    for (const args of [
      ["list", "--target", "127.0.0.1:1", "--type", "workspace", "--relation", "view", "--subject", "alice"],
      ["migrate"],
      ["migrate", "--input", "a.json", "--from-url", "https://rbac.example.com"],
      ["advise", "--facts", "f.json", "--asset"],
    ]) {
      const error = await buildProgram()
        .parseAsync(["node", "gatehouse", ...args])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isUsageError(error), args.join(" ")).toBe(true);
    }
    const unreadable = await buildProgram()
      .parseAsync(["node", "gatehouse", "advise", "--facts", "/nonexistent/facts.json"])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(unreadable).toBeInstanceOf(Error);
    expect(isUsageError(unreadable)).toBe(false);
  });

  it("-V prints the version", async () => {
    expect(await exitOf("-V")).toBe(0);
    expect(output.out).toBe(`${version}\n`);
  });

  it.each([
    [["check", "--object", "rbac/workspace:1", "--relation", "view", "--subject", "alice", "--bogus"], "error: unknown option '--bogus'"],
    [["schema", "frobnicate"], "error: unknown command 'frobnicate'"],
    [["list", "--type"], "error: option '--type <type>' argument missing"],
    [["advise", "--count", "lots"], "error: option '--count <n>' argument 'lots' is invalid"],
    [["migrate", "too", "many", "arguments", "here"], "error: too many arguments"],
  ])("%j is a usage error, printed once on stderr (exit 2)", async (args, message) => {
    expect(await exitOf(...args)).toBe(EXIT_USAGE);
    expect(output.out).toBe("");
    expect(occurrences(output.err, message)).toBe(1);
  });
});
