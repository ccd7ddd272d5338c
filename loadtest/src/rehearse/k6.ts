// k6 runs of the rehearsal: the scripts in loadtest/k6 against the ingress, k6's own end-of-test
// summary and threshold verdict (its exit code) kept for the report.
import { readFileSync } from "node:fs";
import path from "node:path";
import { LOADTEST_ROOT } from "../run.ts";
import type { ManagedProcess, ProcessRegistry } from "./processes.ts";
import type { K6Summary } from "./report.ts";

/** Steady-state scripts: the Check mix over gRPC, Pattern 2 lists, management writes, the browsers' HTTP/JSON checks. */
export const K6_SCRIPTS = ["check-mix.ts", "pattern2-list.ts", "management-mix.ts", "checkself-http.ts"];

function spawnK6(registry: ProcessRegistry, binary: string, script: string, env: Record<string, string>, dir: string): ManagedProcess {
  return registry.start({
    name: `k6 ${script}`,
    command: binary,
    // p99 beside the median and p95: the faults' target is stated on p99.
    args: ["run", "--summary-trend-stats=med,p(95),p(99),max", "--quiet", "--no-color", script],
    cwd: path.join(LOADTEST_ROOT, "k6"),
    // k6 hands the system environment to the scripts as __ENV, as -e variables would be.
    env: { PATH: process.env["PATH"], HOME: process.env["HOME"], ...env },
    logFile: path.join(dir, `k6-${script}-${Date.now()}.log`),
  });
}

/** The summary without k6's log lines (`time=... level=...`), which the scripts' error logging may fill. */
function summaryOf(p: ManagedProcess): string {
  const text = readFileSync(p.spec.logFile, "utf8");
  return text
    .split("\n")
    .filter((line) => !line.startsWith("time="))
    .join("\n");
}

async function finished(p: ManagedProcess, script: string, phase: string): Promise<K6Summary> {
  const exitCode = await p.exited;
  return { script, phase, exitCode, summary: summaryOf(p) };
}

export function runK6(registry: ProcessRegistry, binary: string, script: string, env: Record<string, string>, dir: string, phase: string): Promise<K6Summary> {
  return finished(spawnK6(registry, binary, script, env, dir), script, phase);
}

export function startK6(registry: ProcessRegistry, binary: string, script: string, env: Record<string, string>, dir: string, phase: string): { interrupt(): Promise<K6Summary> } {
  const p = spawnK6(registry, binary, script, env, dir);
  return {
    interrupt: () => {
      // SIGINT: k6 stops the scenario, prints its summary and judges its thresholds.
      p.signal("SIGINT");
      return finished(p, script, phase);
    },
  };
}
