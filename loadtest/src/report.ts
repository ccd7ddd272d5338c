// Results as JSON (machine-readable) and a Markdown table (RESULTS.md), with the ratios the
// specification's performance claim rests on, computed from the same run.
import os from "node:os";
import type { LatencySummary } from "./histogram.ts";

export interface ScenarioResult {
  name: string;
  description: string;
  unit: string;
  requests: number;
  errors: number;
  firstError?: string;
  elapsedMs: number;
  throughputPerSec: number;
  latency: LatencySummary;
  serverCpuMsPerRequest?: number;
  extra: Record<string, number | string>;
  parts?: Record<string, LatencySummary>;
  /**
   * The scenario's thresholds: `passed` is the verdict. In a smoke run latency limits are recorded
   * but not judged (`latencyJudged: false`): seconds of load on a throwaway server measure warm-up.
   */
  threshold?: { rule: string; passed: boolean; latencyJudged?: boolean };
}

export interface Ratios {
  /** Full per-host Check pass (extrapolated) ÷ Pattern 2 end-to-end, both p50. */
  checkVsPattern2: number;
  /** CheckBulk full pass ÷ Pattern 2 end-to-end, both p50. */
  checkBulkVsPattern2: number;
  /** Check p50 ÷ bare-transport p50 (same arrival rate). */
  checkVsFloor: number;
  /** Server CPU per Check ÷ per health RPC. */
  checkVsFloorCpu?: number;
  pattern2P95Ms: number;
  pattern2P95TargetMs: number;
  targetsMet: boolean;
}

export interface RunReport {
  date: string;
  machine: string;
  /** 1-minute load average when the scenarios started (other work sharing the machine). */
  loadAverage: number;
  command: string;
  scale: string;
  hosts: number;
  store: string;
  appDb: string;
  scenarios: ScenarioResult[];
  ratios: Ratios;
}

export function machineDescription(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
  return `${cpus.length} vCPU ${os.arch()} (${model}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node.split(".")[0]}`;
}

export function computeRatios(results: ScenarioResult[], p95TargetMs: number): Ratios {
  const get = (name: string): ScenarioResult => {
    const r = results.find((x) => x.name === name);
    if (!r) throw new Error(`scenario ${name} missing from the run`);
    return r;
  };
  const p2 = get("pattern2-list");
  const bulk = get("pattern1-checkbulk");
  const check = get("pattern1-check");
  const mix = get("check-mix");
  const floor = get("floor");
  const fullCheckMs = Number(check.extra["extrapolatedFullPassMs"]);
  const checkVsPattern2 = fullCheckMs / p2.latency.p50Ms;
  return {
    checkVsPattern2,
    checkBulkVsPattern2: bulk.latency.p50Ms / p2.latency.p50Ms,
    checkVsFloor: mix.latency.p50Ms / floor.latency.p50Ms,
    ...(mix.serverCpuMsPerRequest && floor.serverCpuMsPerRequest ? { checkVsFloorCpu: mix.serverCpuMsPerRequest / floor.serverCpuMsPerRequest } : {}),
    pattern2P95Ms: p2.latency.p95Ms,
    pattern2P95TargetMs: p95TargetMs,
    targetsMet: p2.latency.p95Ms <= p95TargetMs && checkVsPattern2 >= 100,
  };
}

const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const fmt = (v: number | string): string => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : v);

export function renderMarkdown(r: RunReport): string {
  const lines = [
    `## Run of ${r.date}`,
    "",
    `- Machine: ${r.machine}; load average ${r.loadAverage.toFixed(1)} when the scenarios started (driver, server and Postgres share the machine)`,
    `- Scale: ${r.scale} (${r.hosts.toLocaleString("en-US")} hosts); Gatehouse store: ${r.store}; application table: ${r.appDb}`,
    `- Command: \`${r.command}\``,
    "",
    "| Scenario | Unit | Requests | Throughput /s | p50 ms | p95 ms | p99 ms | Errors | Server CPU ms/req | Notes |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const s of r.scenarios) {
    const notes = Object.entries(s.extra).map(([k, v]) => `${k}=${fmt(v)}`);
    if (s.threshold) notes.push(`${s.threshold.rule}: ${s.threshold.passed ? "pass" : "FAIL"}${s.threshold.latencyJudged === false ? " (latency not judged in a smoke run)" : ""}`);
    if (s.firstError) notes.push(`first error: ${s.firstError.slice(0, 120).replace(/\|/g, "/")}`);
    const cpu = s.serverCpuMsPerRequest === undefined ? "n/a" : ms(s.serverCpuMsPerRequest);
    lines.push(
      `| ${s.name} | ${s.unit} | ${s.requests} | ${s.throughputPerSec.toFixed(1)} | ${ms(s.latency.p50Ms)} | ${ms(s.latency.p95Ms)} | ${ms(s.latency.p99Ms)} | ${s.errors} | ${cpu} | ${notes.join("; ")} |`,
    );
    for (const [part, l] of Object.entries(s.parts ?? {})) {
      lines.push(`| ↳ ${part} | | ${l.count} | | ${ms(l.p50Ms)} | ${ms(l.p95Ms)} | ${ms(l.p99Ms)} | | | |`);
    }
  }
  const x = r.ratios;
  lines.push(
    "",
    "| Comparison (same run, p50) | Ratio |",
    "|---|---:|",
    `| Per-host Check over all hosts (extrapolated from the sample) ÷ Pattern 2 end-to-end | ${x.checkVsPattern2.toFixed(0)}× |`,
    `| CheckBulk over all hosts (batches of 1,000) ÷ Pattern 2 end-to-end | ${x.checkBulkVsPattern2.toFixed(1)}× |`,
    `| Check (check-mix) ÷ bare transport (health RPC), latency at the same arrival rate | ${x.checkVsFloor.toFixed(2)}× |`,
    ...(x.checkVsFloorCpu === undefined ? [] : [`| Check (check-mix) ÷ bare transport (health RPC), server CPU per request | ${x.checkVsFloorCpu.toFixed(2)}× |`]),
    "",
    `Targets: Pattern 2 p95 ${ms(x.pattern2P95Ms)} ms (target ≤ ${x.pattern2P95TargetMs} ms) and ≥ 100× faster than per-host Check: **${x.targetsMet ? "met" : "NOT met"}**.`,
    "",
  );
  return lines.join("\n");
}

/**
 * Why a run failed, one line per reason (empty: it passed). A smoke run fails on errors and failed
 * thresholds; a full run also on the performance targets.
 */
export function runFailures(report: Pick<RunReport, "scenarios" | "ratios">, kind: "smoke" | "full"): string[] {
  const failures: string[] = [];
  for (const s of report.scenarios) {
    if (s.errors > 0) failures.push(`${s.name}: ${s.errors} error(s), first: ${(s.firstError ?? "").slice(0, 200)}`);
    else if (s.threshold && !s.threshold.passed) failures.push(`${s.name}: threshold ${s.threshold.rule} FAILED`);
  }
  if (kind === "full" && !report.ratios.targetsMet) {
    const r = report.ratios;
    failures.push(
      `targets NOT met: Pattern 2 p95 ${r.pattern2P95Ms.toFixed(1)} ms (target <= ${r.pattern2P95TargetMs} ms), per-host Check / Pattern 2 ${r.checkVsPattern2.toFixed(0)}x (target >= 100x)`,
    );
  }
  return failures;
}
