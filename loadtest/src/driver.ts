// Runs every scenario once, in a fixed order, measuring server CPU around each, and returns the
// rows of the results table. Order matters: management-mix writes bindings, so it runs last.
import { computeRatios, type RunReport, type ScenarioResult } from "./report.ts";
import { checkMix, floor, managementMix, pattern1Bulk, pattern1Check, pattern2, pattern2Answer, type ScenarioContext, type ScenarioRun } from "./scenarios.ts";
import { openLoop } from "./load.ts";
import { cpuTimeMs } from "./server.ts";

export type Log = (line: string) => void;

function thresholdOf(ctx: ScenarioContext, name: string, run: ScenarioRun): ScenarioResult["threshold"] {
  const scenario = (ctx.file.scenarios as Record<string, { thresholds?: { p95Ms?: number; p99Ms?: number; errorRate: number } }>)[name];
  const t = scenario?.thresholds;
  if (!t) return undefined;
  const latency = run.outcome.latencies.summary();
  const errorRate = run.outcome.requests === 0 ? 1 : run.outcome.errors / run.outcome.requests;
  const rules: string[] = [];
  let passed = errorRate <= t.errorRate;
  if (t.p95Ms !== undefined) {
    rules.push(`p95≤${t.p95Ms}ms`);
    passed &&= latency.p95Ms <= t.p95Ms;
  }
  if (t.p99Ms !== undefined) {
    rules.push(`p99≤${t.p99Ms}ms`);
    passed &&= latency.p99Ms <= t.p99Ms;
  }
  rules.push(`errors≤${t.errorRate * 100}%`);
  // A smoke run's seconds of load on a fresh server measure warm-up: its latency is shown, not judged.
  if (ctx.smoke) return { rule: rules.join(", "), passed: errorRate <= t.errorRate, latencyJudged: false };
  return { rule: rules.join(", "), passed };
}

async function measure(ctx: ScenarioContext, pid: number | undefined, name: string, log: Log, body: () => Promise<ScenarioRun>): Promise<ScenarioResult> {
  log(`running ${name} ...`);
  const cpu0 = cpuTimeMs(pid);
  const run = await body();
  const cpu1 = cpuTimeMs(pid);
  const { outcome } = run;
  const description = (ctx.file.scenarios as Record<string, { description: string }>)[name]?.description ?? "";
  const result: ScenarioResult = {
    name,
    description,
    unit: run.unit,
    requests: outcome.requests,
    errors: outcome.errors,
    ...(outcome.firstError ? { firstError: outcome.firstError } : {}),
    elapsedMs: outcome.elapsedMs,
    throughputPerSec: outcome.requests / (outcome.elapsedMs / 1000),
    latency: outcome.latencies.summary(),
    ...(cpu0 !== undefined && cpu1 !== undefined && outcome.requests > 0 ? { serverCpuMsPerRequest: (cpu1 - cpu0) / outcome.requests } : {}),
    extra: run.extra,
    ...(run.parts ? { parts: run.parts } : {}),
  };
  const threshold = thresholdOf(ctx, name, run);
  if (threshold) result.threshold = threshold;
  log(
    `  ${name}: ${result.requests} ${run.unit} in ${(result.elapsedMs / 1000).toFixed(1)} s, p50 ${result.latency.p50Ms.toFixed(2)} ms, p95 ${result.latency.p95Ms.toFixed(2)} ms, errors ${result.errors}`,
  );
  return result;
}

export async function runScenarios(ctx: ScenarioContext, pid: number | undefined, log: Log): Promise<{ scenarios: ScenarioResult[]; ratios: RunReport["ratios"] }> {
  // Warm-up: connections, JIT and the first reverse lookups, outside the measurements.
  await ctx.grpc.health();
  // A freshly started server still settles (GC after loading the graph): give it a few seconds.
  await openLoop(ctx.file.scenarios["check-mix"].smokeRate, ctx.smoke ? 500 : 3000, 64, () => ctx.grpc.health());
  const answer = await pattern2Answer(ctx);
  log(`subject 0 sees ${answer.visible.size} workspaces and ${answer.count} hosts (Pattern 2)`);
  const results: ScenarioResult[] = [];
  results.push(await measure(ctx, pid, "floor", log, () => floor(ctx)));
  results.push(await measure(ctx, pid, "check-mix", log, () => checkMix(ctx)));
  results.push(await measure(ctx, pid, "pattern2-list", log, () => pattern2(ctx)));
  results.push(await measure(ctx, pid, "pattern2-list-broad", log, () => pattern2(ctx, "pattern2-list-broad")));
  results.push(await measure(ctx, pid, "pattern1-checkbulk", log, () => pattern1Bulk(ctx, answer)));
  results.push(await measure(ctx, pid, "pattern1-check", log, () => pattern1Check(ctx, answer)));
  results.push(await measure(ctx, pid, "management-mix", log, () => managementMix(ctx)));
  const target = ctx.file.scenarios["pattern2-list"].thresholds.p95Ms ?? 50;
  return { scenarios: results, ratios: computeRatios(results, target) };
}
