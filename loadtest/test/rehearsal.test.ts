// The rehearsal's smoke: the stage topology at 1,000 hosts (HAProxy, two management APIs, two engines
// on a streaming replica, workspace cache, Redis, all set up by the rehearsal itself), every fault
// under the Node driver's watched traffic, the data set's principals and hosts loaded in bulk.
// Asserted: no wrong answer, no acknowledged write lost, every fault recovered, the killed engine
// back from a checkpoint, the replica behind when its replay resumed. Failed requests and latencies
// are reported, never asserted (the machine may be loaded many times over).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { postgresBinDir } from "../src/rehearse/postgres.ts";
import type { RehearsalReport } from "../src/rehearse/report.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = mkdtempSync(path.join(os.tmpdir(), "gatehouse-rehearsal-results-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const installed = (command: string, flag: string): boolean => {
  try {
    execFileSync(command, [flag], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const pgBin = postgresBinDir();
const missing = [
  ...(installed("haproxy", "-v") ? [] : ["haproxy"]),
  ...(installed("redis-server", "--version") ? [] : ["redis-server"]),
  ...(pgBin && existsSync(path.join(pgBin, "pg_basebackup")) ? [] : ["PostgreSQL server binaries"]),
];
if (process.env["CI"] === "true" && missing.length > 0) throw new Error(`the rehearsal needs ${missing.join(", ")} (.ci/run installs them)`);

describe.skipIf(missing.length > 0)("rehearsal smoke (1k hosts, every fault)", () => {
  it("answers every check right and loses no acknowledged write through all five faults", async () => {
    const args = ["--import", "tsx", "src/cli.ts", "rehearse", "--scale", "1k", "--from-source", "--steady", "3", "--replica-pause", "0", "--check-rate", "20"];
    await promisify(execFile)(process.execPath, [...args, "--out", out, "--name", "smoke"], { cwd: root, maxBuffer: 64 * 2 ** 20 }).catch((error: { stderr?: string }) => {
      throw new Error(`rehearsal failed:\n${error.stderr?.slice(-6000)}`);
    });
    const report = JSON.parse(readFileSync(path.join(out, "smoke.json"), "utf8")) as RehearsalReport;
    expect(report.traffic.wrongAnswers).toEqual([]);
    expect(report.traffic.lostWrites).toEqual([]);
    expect(report.traffic.writes).toBeGreaterThan(0);
    expect(report.traffic.freshChecks).toBeGreaterThanOrEqual(2 * report.traffic.writes);
    expect(report.traffic.checksCompared).toBeGreaterThan(0);
    expect(report.figures.faults.map((f) => f.name)).toEqual(["engine kill -9", "management API rolling restart", "Postgres replica restart", "Redis restart", "replica behind"]);
    expect(report.figures.faults[0]!.notes.join(" ")).toContain("restarted from a checkpoint");
    // The replica-behind fault is bounded by events: an engine replaced on the paused replica, which was behind.
    expect(report.figures.faults[4]!.notes.join(" ")).toMatch(/KiB of WAL behind when replay resumed/);
    // Principals and hosts in bulk (test/bulk-parity.test.ts proves the same answers as the API load).
    expect(report.load).toBe("bulk");
    for (const kind of ["check", "fresh-check", "write", "management-read", "cache-lookup"]) {
      expect(report.figures.byKind.find((k) => k.kind === kind)!.requests, kind).toBeGreaterThan(0);
    }
    const markdown = readFileSync(path.join(out, "smoke.md"), "utf8");
    expect(markdown).toContain("| No wrong answer | yes |");
    expect(markdown).toContain("| No acknowledged write lost | yes |");
  });
});
