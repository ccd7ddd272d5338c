// The Grafana dashboard and the Prometheus rules in infra/observability may only name metrics the
// services really expose: this starts all three and reads their /metrics.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSilentLogger } from "@gatehouse/telemetry";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";

const observability = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "infra", "observability");

// PromQL words that look like metric names but are not.
const PROMQL_WORDS = new Set([
  "sum",
  "min",
  "max",
  "avg",
  "count",
  "rate",
  "irate",
  "increase",
  "histogram_quantile",
  "clamp_min",
  "clamp_max",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "topk",
  "bottomk",
  "abs",
]);

/** Metric names in a PromQL expression: identifiers not inside {...} label matchers, [...] ranges or strings. */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, "{}")
    .replace(/\[[^\]]*\]/g, "[]")
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, "")
    .replace(/(^|[^a-zA-Z_:0-9])\d+(\.\d+)?(e[+-]?\d+)?/g, "$1 0");
  const names = stripped.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return names.filter((name) => !PROMQL_WORDS.has(name));
}

/** Every sample name a /metrics page can hold: each `# TYPE`, histograms with _bucket, _sum, _count. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match;
    names.add(name!);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name! + suffix);
    if (type === "summary") for (const suffix of ["_sum", "_count"]) names.add(name! + suffix);
  }
  return names;
}

function collectExprs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((child) => collectExprs(child, out));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "expr" && typeof value === "string") out.push(value);
      else collectExprs(value, out);
    }
  }
  return out;
}

let running: RunningGatehouse;
const exposed = new Map<string, Set<string>>();

beforeAll(async () => {
  running = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: false }, createSilentLogger());
  const scrape = async (port: number) => exposedNames(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  exposed.set("management-api", await scrape(running.ports.http));
  exposed.set("authz-engine", await scrape(running.ports.metrics));
  exposed.set("workspace-cache", await scrape(running.ports.cache));
});

afterAll(async () => {
  await running?.stop();
});

describe("infra/observability", () => {
  const any = () => new Set([...exposed.values()].flatMap((names) => [...names]));

  it("finds metric names in PromQL", () => {
    expect(metricNamesIn('histogram_quantile(0.99, sum by (le) (rate(a_bucket{job="x",m=~"y|z"}[5m]))) / clamp_min(b_total, 1e-9) > 0.01')).toEqual(["a_bucket", "b_total"]);
  });

  it("every service exposes the standard process metrics", () => {
    for (const [service, names] of exposed) {
      for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_eventloop_lag_p99_seconds", "nodejs_heap_size_used_bytes"]) {
        expect(names.has(name), `${service}: ${name}`).toBe(true);
      }
    }
    expect(exposed.get("authz-engine")!.has("grpc_server_handled_total")).toBe(true);
    expect(exposed.get("management-api")!.has("http_request_duration_seconds_bucket")).toBe(true);
    expect(exposed.get("workspace-cache")!.has("http_request_duration_seconds_bucket")).toBe(true);
  });

  it.each([
    ["grafana-dashboard.json", (text: string) => JSON.parse(text) as unknown],
    ["prometheus-rules.yaml", (text: string) => parse(text) as unknown],
  ])("%s names only metrics the services expose", (file, load) => {
    const exprs = collectExprs(load(readFileSync(path.join(observability, file), "utf8")));
    expect(exprs.length).toBeGreaterThan(3);
    const all = any();
    for (const expr of exprs) {
      const names = metricNamesIn(expr);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names) expect(all.has(name), `${file}: ${name} in ${expr}`).toBe(true);
      // A job selector must point at a service that really has the metric.
      for (const job of /job="([^"]+)"/.exec(expr)?.slice(1) ?? []) {
        for (const name of names) expect(exposed.get(job)?.has(name), `${file}: ${name} on ${job}`).toBe(true);
      }
    }
  });
});
