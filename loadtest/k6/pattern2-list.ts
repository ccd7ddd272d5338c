// Pattern 2 per virtual user: StreamedListObjects over workspaces for the contingent relation
// (every page), then the application's filtered query over the hosts of those workspaces.
//
// k6 has no SQL client, so the list runs one of two ways:
// - APP_LIST_URL set: the application's own Pattern 2 list (apps/example-host-inventory's
//   GET /api/inventory/v1/hosts as the principal: its SDK lookup, then its SQL over the generated
//   hosts); the answer's server-timing splits the lookup from the query;
// - otherwise: the stream from here, then the same filter in memory over the generator's
//   deterministic host placement (a stand-in for the query; the Node driver runs the real SQL).
//   k6 run -e MANIFEST=<manifest.json> -e GRPC_TARGET=host:port loadtest/k6/pattern2-list.ts
import { check } from "k6";
import { SharedArray } from "k6/data";
import encoding from "k6/encoding";
import http from "k6/http";
import { Rate, Trend } from "k6/metrics";
import grpc from "k6/net/grpc";
import type { Options } from "k6/options";
import { defaultLevelPrincipals, hostWorkspaceIndex, userId } from "../shared/model.ts";
import { identityJson, listWorkspacesRequest, principalSubject, streamedId, streamedToken, type StreamedItem } from "../shared/requests.ts";
import { countingErrorsAsync } from "./lib/errors.ts";
import { METHOD, env, grpcParams, inventory, load, thresholdsOf, withWarmup } from "./lib/common.ts";

const { file, manifest, scale } = load(open("../scenarios/scenarios.json"), open(env.manifestPath));
// BROAD=true: the pattern2-list-broad variant (principals bound at the default workspace see every host).
const broad = __ENV["BROAD"] === "true";
const s = file.scenarios["pattern2-list"];
const principals = broad ? defaultLevelPrincipals(scale) : manifest.measured;
const durationText = broad ? file.scenarios["pattern2-list-broad"].duration : s.duration;
const appListUrl = __ENV["APP_LIST_URL"];

/** Host count per workspace (plan order), computed once and shared by all VUs. */
const hostsPerWorkspace = new SharedArray("hostsPerWorkspace", () => {
  const counts = new Array<number>(scale.workspaces).fill(0);
  for (let h = 0; h < scale.hosts; h++) counts[hostWorkspaceIndex(file.seed, h, scale.workspaces)]! += 1;
  return [counts];
});
const workspaceIndex: Record<string, number> = {};
manifest.workspaceIds.forEach((id, i) => (workspaceIndex[id] = i));

const endToEnd = new Trend("pattern2_duration", true);
const streamTime = new Trend("pattern2_stream_duration", true);
const filterTime = new Trend("pattern2_filter_duration", true);
const visibleHosts = new Trend("pattern2_visible_hosts");
const errors = new Rate("pattern2_errors");

export const options: Options = {
  scenarios: withWarmup("pattern2", { executor: "constant-vus", vus: env.vus ?? s.concurrency, duration: env.duration ?? (env.smoke ? s.smokeDuration : durationText) }),
  thresholds: thresholdsOf("pattern2_duration", s.thresholds, "pattern2_errors", s.thresholds.errorRate, "pattern2"),
};

/** One page of the stream; resolves with its items (an empty page ends the listing). */
function page(subjectIndex: number, token: string | undefined): Promise<StreamedItem[]> {
  return new Promise((resolve, reject) => {
    const items: StreamedItem[] = [];
    const stream = new grpc.Stream(inventory(), METHOD("StreamedListObjects"), grpcParams());
    stream.on("data", (item) => items.push(item as StreamedItem));
    stream.on("error", (e) => reject(new Error(JSON.stringify(e))));
    stream.on("end", () => resolve(items));
    const subject = principalSubject(manifest.domain, userId(principals[subjectIndex % principals.length] as number));
    stream.write(listWorkspacesRequest(file.relations.contingent, subject, s.pageSize, token));
    stream.end();
  });
}

/** Durations (ms) by name from a `server-timing` header (`authz;dur=12.3, sql;dur=4.5`). */
function serverTimings(header: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? "").split(",")) {
    const m = /^\s*([\w-]+);dur=([\d.]+)\s*$/.exec(part);
    if (m) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

/** The application's list as the principal; the app does the lookup and the SQL. */
function appList(subjectIndex: number): boolean {
  const user = userId(principals[subjectIndex % principals.length] as number);
  const headers = { "x-rh-identity": encoding.b64encode(identityJson(manifest.org, user, false)) };
  const res = http.get(`${appListUrl}?limit=${s.appPageSize}`, { headers });
  const ok = check(res, { "app list 200": (r) => r.status === 200 });
  const timings = serverTimings(res.headers["Server-Timing"]);
  if (timings["authz"] !== undefined) streamTime.add(timings["authz"]);
  if (timings["sql"] !== undefined) filterTime.add(timings["sql"]);
  visibleHosts.add(ok ? Number((res.json() as { meta?: { count?: number } } | null)?.meta?.count ?? 0) : 0);
  return ok;
}

let iteration = 0;

export default async function (): Promise<void> {
  const subjectIndex = __VU * 7919 + iteration++;
  const t0 = Date.now();
  await countingErrorsAsync(errors, async () => {
    if (appListUrl) return appList(subjectIndex);
    const ids: string[] = [];
    let token: string | undefined;
    for (;;) {
      const items = await page(subjectIndex, token);
      for (const item of items) {
        const id = streamedId(item);
        if (id) ids.push(id);
      }
      token = streamedToken(items[items.length - 1]);
      if (items.length === 0 || !token) break;
    }
    const t1 = Date.now();
    streamTime.add(t1 - t0);
    const counts = hostsPerWorkspace[0] as number[];
    let count = 0;
    for (const id of ids) count += counts[workspaceIndex[id] ?? -1] ?? 0;
    filterTime.add(Date.now() - t1);
    visibleHosts.add(count);
    return true;
  });
  endToEnd.add(Date.now() - t0);
}
