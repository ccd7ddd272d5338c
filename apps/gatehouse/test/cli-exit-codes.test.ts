// The CLI as a shell sees it: a real child process run from source. Help and --version exit 0 and
// print only what was asked for; usage errors are printed once and exit 2; runtime failures exit 1;
// nothing prints a stack trace.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { version } = JSON.parse(readFileSync(path.join(appDir, "package.json"), "utf8")) as { version: string };

interface Exit {
  code: number;
  out: string;
  err: string;
}

function gatehouse(...args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "src/main.ts", ...args],
      { cwd: appDir, env: { ...process.env, LOG_LEVEL: "error" }, timeout: 60_000 },
      (error, out, err) => resolve({ code: error ? Number(error.code ?? -1) : 0, out, err }),
    );
  });
}

const occurrences = (text: string, part: string): number => text.split(part).length - 1;
const noStackTrace = (text: string): void => expect(text).not.toMatch(/^\s+at .+[:(]/m);

describe("gatehouse help and version", () => {
  it.each([
    [["--help"], "Usage: gatehouse [options] [command]"],
    [["-h"], "Usage: gatehouse [options] [command]"],
    [["help"], "Usage: gatehouse [options] [command]"],
    [["check", "--help"], "Usage: gatehouse check [options]"],
    [["help", "list"], "Usage: gatehouse list [options]"],
    [["schema", "--help"], "Usage: gatehouse schema [options] [command]"],
    [["schema", "build", "--help"], "Usage: gatehouse schema build [options] [files...]"],
    [["migrate", "--help"], "Usage: gatehouse migrate"],
  ])("%j prints the help once on stdout and exits 0", async (args, usage) => {
    const run = await gatehouse(...args);
    expect(run.code).toBe(0);
    expect(run.out.startsWith(usage)).toBe(true);
    expect(occurrences(run.out, "Usage:")).toBe(1);
    expect(run.err).toBe("");
  }, 90_000);

  it.each([["--version"], ["-V"]])("%s prints the package version and exits 0", async (flag) => {
    const run = await gatehouse(flag);
    expect(run).toEqual({ code: 0, out: `${version}\n`, err: "" });
  }, 90_000);
});

describe("gatehouse usage errors", () => {
  it.each([
    [["bogus"], "error: unknown command 'bogus'"],
    [["check", "--object", "rbac/workspace:1", "--relation", "view", "--subject", "alice", "--bogus"], "error: unknown option '--bogus'"],
    [["check", "--relation", "view", "--subject", "alice"], "error: required option '--object <ref>' not specified"],
    [["schema", "frobnicate"], "error: unknown command 'frobnicate'"],
    [["list", "--type"], "error: option '--type <type>' argument missing"],
    [["advise", "--count", "lots"], "error: option '--count <n>' argument 'lots' is invalid"],
  ])("%j is printed once on stderr and exits 2", async (args, message) => {
    const run = await gatehouse(...args);
    expect(run.code).toBe(2);
    expect(run.out).toBe("");
    expect(occurrences(run.err, message)).toBe(1);
    expect(run.err).toContain("--help");
    noStackTrace(run.err);
  }, 90_000);
});

describe("gatehouse runtime failures", () => {
  it("exits 1 with one line naming the problem when the engine is unreachable", async () => {
    // Port 1 refuses connections at once.
    const run = await gatehouse("check", "--target", "127.0.0.1:1", "--object", "rbac/workspace:1", "--relation", "view", "--subject", "alice", "--json");
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toMatch(/UNAVAILABLE/);
    expect(run.err.trim().split("\n")).toHaveLength(1);
    noStackTrace(run.err);
  }, 90_000);

  it("exits 1 on an unreadable input file, without a stack trace", async () => {
    const run = await gatehouse("advise", "--facts", "/nonexistent/facts.json");
    expect(run.code).toBe(1);
    expect(run.err).toContain("/nonexistent/facts.json");
    noStackTrace(run.err);
  }, 90_000);
});
