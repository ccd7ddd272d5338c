// The rehearsal's report: each fault's window, its failed requests, the Check p99 before, during and
// after it, and the correctness verdicts. Pure: samples and records in, figures and Markdown out.
import type { FaultRecord } from "./faults.ts";
import type { Sample, SampleKind, TrafficResult } from "./traffic.ts";

/** Failed requests up to this long after a recovery still belong to the fault (HAProxy's checks, connection re-establishment). */
export const RECOVERY_GRACE_MS = 2000;
/** "p99 back to its steady value within 10 s of recovery" is judged on the 10 s that follow those 10 s. */
export const SETTLE_MS = 10_000;

export interface FaultFigures {
  name: string;
  what: string;
  startS: number;
  durationS: number;
  /** Failed requests of any kind from the fault's start to its recovery plus the grace. */
  failed: number;
  failedByKind: Partial<Record<SampleKind, number>>;
  requests: number;
  p99BeforeMs: number | undefined;
  p99DuringMs: number | undefined;
  p99FirstTenSecondsMs: number | undefined;
  p99AfterMs: number | undefined;
  /** The check p99 in the 10 s after the first 10 s of recovery is within the steady bound. */
  backToSteady: boolean | undefined;
  notes: string[];
}

export interface RehearsalFigures {
  steadyP50Ms: number | undefined;
  steadyP99Ms: number | undefined;
  faults: FaultFigures[];
  /** Failed requests outside every fault's window (should be none). */
  failedOutsideWindows: number;
  firstFailureOutside?: string;
  requests: number;
  byKind: { kind: SampleKind; requests: number; failed: number; p50Ms: number | undefined; p99Ms: number | undefined }[];
}

export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const checkLatencies = (samples: Sample[], from: number, to: number): number[] => samples.filter((s) => s.kind === "check" && s.ok && s.t >= from && s.t < to).map((s) => s.ms);

/** A p99 "back to steady" bound: twice the steady p99, and never under steady + 5 ms (a few ms of jitter on a small value). */
export function steadyBound(steadyP99: number): number {
  return Math.max(2 * steadyP99, steadyP99 + 5);
}

export function computeFigures(samples: Sample[], faults: FaultRecord[], endMs: number): RehearsalFigures {
  const firstFault = faults[0]?.start ?? endMs;
  const steady = checkLatencies(samples, 0, firstFault);
  const steadyP99 = percentile(steady, 99);
  const windows = faults.map((f) => [f.start, f.recovered + RECOVERY_GRACE_MS] as const);
  // A request belongs to a window when its time in flight meets it: one sent just before a kill and
  // cut by it is the fault's failure, not one outside every window.
  const meets = (s: Sample, a: number, b: number): boolean => s.t <= b && s.t + s.ms >= a;
  const inAnyWindow = (s: Sample): boolean => windows.some(([a, b]) => meets(s, a, b));
  const figures = faults.map((f, i): FaultFigures => {
    const next = faults[i + 1]?.start ?? endMs;
    const previousEnd = faults[i - 1]?.recovered ?? 0;
    const during = samples.filter((s) => meets(s, f.start, f.recovered + RECOVERY_GRACE_MS));
    const failed = during.filter((s) => !s.ok);
    const failedByKind: Partial<Record<SampleKind, number>> = {};
    for (const s of failed) failedByKind[s.kind] = (failedByKind[s.kind] ?? 0) + 1;
    const after = percentile(checkLatencies(samples, f.recovered + SETTLE_MS, Math.min(next, f.recovered + 2 * SETTLE_MS)), 99);
    return {
      name: f.name,
      what: f.what,
      startS: f.start / 1000,
      durationS: (f.recovered - f.start) / 1000,
      failed: failed.length,
      failedByKind,
      requests: during.length,
      p99BeforeMs: percentile(checkLatencies(samples, Math.max(previousEnd, f.start - SETTLE_MS), f.start), 99),
      p99DuringMs: percentile(checkLatencies(samples, f.start, f.recovered), 99),
      p99FirstTenSecondsMs: percentile(checkLatencies(samples, f.recovered, Math.min(next, f.recovered + SETTLE_MS)), 99),
      p99AfterMs: after,
      backToSteady: after === undefined || steadyP99 === undefined ? undefined : after <= steadyBound(steadyP99),
      notes: f.notes,
    };
  });
  const outside = samples.filter((s) => !s.ok && !inAnyWindow(s));
  const kinds: SampleKind[] = ["check", "fresh-check", "write", "management-read", "cache-lookup"];
  return {
    steadyP50Ms: percentile(steady, 50),
    steadyP99Ms: steadyP99,
    faults: figures,
    failedOutsideWindows: outside.length,
    ...(outside[0] ? { firstFailureOutside: `${outside[0].kind} at ${(outside[0].t / 1000).toFixed(1)} s: ${outside[0].error}` } : {}),
    requests: samples.length,
    byKind: kinds.map((kind) => {
      const of = samples.filter((s) => s.kind === kind);
      const ok = of.filter((s) => s.ok).map((s) => s.ms);
      return { kind, requests: of.length, failed: of.length - ok.length, p50Ms: percentile(ok, 50), p99Ms: percentile(ok, 99) };
    }),
  };
}

export interface K6Summary {
  script: string;
  phase: string;
  exitCode: number | null;
  /** k6's own end-of-test summary (text). */
  summary: string;
}

export interface RehearsalReport {
  date: string;
  machine: string;
  loadAverageStart: number;
  loadAverageEnd: number;
  command: string;
  scale: string;
  hosts: number;
  checkRate: number;
  topology: { name: string; endpoint: string; role: string }[];
  generateSeconds: number;
  /** How principals and hosts were loaded: in bulk into the store, or a request each through the ingress. */
  load?: "bulk" | "api";
  figures: RehearsalFigures;
  traffic: Omit<TrafficResult, "samples" | "writes"> & { writes: number };
  k6: K6Summary[];
  verdicts: { noWrongAnswer: boolean; noLostWrite: boolean; failuresOnlyInWindows: boolean; p99BackWithinTenSeconds: boolean };
}

export function verdicts(figures: RehearsalFigures, traffic: Pick<TrafficResult, "wrongAnswers" | "lostWrites">): RehearsalReport["verdicts"] {
  return {
    noWrongAnswer: traffic.wrongAnswers.length === 0,
    noLostWrite: traffic.lostWrites.length === 0,
    failuresOnlyInWindows: figures.failedOutsideWindows === 0,
    p99BackWithinTenSeconds: figures.faults.every((f) => f.backToSteady !== false),
  };
}

const ms = (v: number | undefined): string => (v === undefined ? "–" : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));
const yes = (b: boolean | undefined): string => (b === undefined ? "–" : b ? "yes" : "**no**");

export function renderRehearsal(r: RehearsalReport): string {
  const f = r.figures;
  const lines = [
    `# Rehearsal of ${r.date}: stage topology at ${r.scale} (${r.hosts.toLocaleString("en-US")} hosts), faults under load`,
    "",
    `- Machine: ${r.machine}; load average ${r.loadAverageStart.toFixed(1)} at the start, ${r.loadAverageEnd.toFixed(1)} at the end (every process below shares it)`,
    `- Command: \`${r.command}\``,
    `- Data set loaded in ${r.generateSeconds.toFixed(0)} s (${r.load === "bulk" ? "roles, workspaces, groups and bindings through the ingress; principals and hosts in bulk into the store by `gatehouse import-hosts`" : "through the ingress, a request each"}); watched traffic: Check mix at ${r.checkRate}/s, writes one at a time each checked with its token (gRPC and HTTP/JSON in turn), management reads (2 in flight), workspace-cache lookups`,
    "",
    "## Topology",
    "",
    "| Process | Endpoint | Role |",
    "|---|---|---|",
    ...r.topology.map((t) => `| ${t.name} | ${t.endpoint} | ${t.role} |`),
    "",
    "## Verdicts",
    "",
    `| Target | Met | Evidence |`,
    "|---|---|---|",
    `| No wrong answer | ${yes(r.verdicts.noWrongAnswer)} | ${r.traffic.checksCompared} checked (host, subject) pairs compared with the answer after the run; ${r.traffic.freshChecks} checks with a write's token; ${r.traffic.wrongAnswers.length} wrong |`,
    `| No acknowledged write lost | ${yes(r.verdicts.noLostWrite)} | ${r.traffic.writes} acknowledged writes, ${r.traffic.lostWrites.length} missing after the run |`,
    `| Failed requests only during faults | ${yes(r.verdicts.failuresOnlyInWindows)} | ${f.failedOutsideWindows} failed outside the windows (window = start to recovery + ${RECOVERY_GRACE_MS / 1000} s)${f.firstFailureOutside ? `; first: ${f.firstFailureOutside}` : ""} |`,
    `| Check p99 back to steady within 10 s of recovery | ${yes(r.verdicts.p99BackWithinTenSeconds)} | steady p99 ${ms(f.steadyP99Ms)} ms; bound max(2×, +5 ms) = ${f.steadyP99Ms === undefined ? "–" : ms(steadyBound(f.steadyP99Ms))} ms, judged on 10–20 s after recovery |`,
    "",
    "## Faults",
    "",
    "Times in seconds from the start of the watched traffic; p99 of the Check mix (successful calls) in ms.",
    "",
    "| Fault | Start s | Window s | Requests in window | Failed | p99 before | p99 during | p99 0–10 s after | p99 10–20 s after | Back to steady |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...f.faults.map(
      (x) =>
        `| ${x.name} | ${x.startS.toFixed(1)} | ${x.durationS.toFixed(1)} | ${x.requests} | ${x.failed}${
          x.failed > 0
            ? ` (${Object.entries(x.failedByKind)
                .map(([k, n]) => `${k} ${n}`)
                .join(", ")})`
            : ""
        } | ${ms(x.p99BeforeMs)} | ${ms(x.p99DuringMs)} | ${ms(x.p99FirstTenSecondsMs)} | ${ms(x.p99AfterMs)} | ${yes(x.backToSteady)} |`,
    ),
    "",
    ...f.faults.map((x) => `- **${x.name}**: ${x.what}.${x.notes.length > 0 ? ` ${x.notes.join("; ")}.` : ""}`),
    "",
    "## Watched traffic",
    "",
    "| Kind | Requests | Failed | p50 ms | p99 ms |",
    "|---|---:|---:|---:|---:|",
    ...f.byKind.map((k) => `| ${k.kind} | ${k.requests} | ${k.failed} | ${ms(k.p50Ms)} | ${ms(k.p99Ms)} |`),
    "",
    `Steady state before the first fault: Check p50 ${ms(f.steadyP50Ms)} ms, p99 ${ms(f.steadyP99Ms)} ms.`,
  ];
  if (r.traffic.wrongAnswers.length > 0) lines.push("", "### Wrong answers", "", ...r.traffic.wrongAnswers.slice(0, 50).map((w) => `- ${w}`));
  if (r.traffic.lostWrites.length > 0) lines.push("", "### Lost writes", "", ...r.traffic.lostWrites.slice(0, 50).map((w) => `- ${w}`));
  for (const k of r.k6) {
    lines.push("", `## k6: ${k.script} (${k.phase}), exit ${k.exitCode}`, "", "```", k.summary.trim(), "```");
  }
  return `${lines.join("\n")}\n`;
}
