// Pattern 2 per virtual user: StreamedListObjects over workspaces for the contingent relation
// (every page), then the application's filtered query over the hosts of those workspaces.
//
// k6 has no SQL client, so step 2 runs one of two ways:
// - APP_LIST_URL set: POST {workspace_ids, limit} to the application's list endpoint (its own SQL);
// - otherwise: the same filter in memory over the generator's deterministic host placement
//   (a stand-in for the query; the Node driver runs the real SQL).
//   k6 run -e MANIFEST=<manifest.json> -e GRPC_TARGET=host:port loadtest/k6/pattern2-list.ts
import { check } from "k6";
import { SharedArray } from "k6/data";
import http from "k6/http";
import { Rate, Trend } from "k6/metrics";
import grpc from "k6/net/grpc";
import type { Options } from "k6/options";
import { defaultLevelPrincipals, hostWorkspaceIndex, userId } from "../shared/model.ts";
import { listWorkspacesRequest, principalSubject, streamedId, streamedToken, type StreamedItem } from "../shared/requests.ts";
import { countingErrorsAsync } from "./lib/errors.ts";
import { METHOD, env, grpcParams, inventory, load, thresholdsOf } from "./lib/common.ts";

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
  scenarios: { pattern2: { executor: "constant-vus", vus: env.vus ?? s.concurrency, duration: env.duration ?? (env.smoke ? s.smokeDuration : durationText) } },
  thresholds: thresholdsOf("pattern2_duration", s.thresholds, "pattern2_errors", s.thresholds.errorRate),
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

let iteration = 0;

export default async function (): Promise<void> {
  const subjectIndex = __VU * 7919 + iteration++;
  const t0 = Date.now();
  await countingErrorsAsync(errors, async () => {
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
    let ok = true;
    let count = 0;
    if (appListUrl) {
      const res = http.post(appListUrl, JSON.stringify({ workspace_ids: ids, limit: s.appPageSize }), { headers: { "content-type": "application/json" } });
      ok = check(res, { "app list 200": (r) => r.status === 200 });
      count = Number((res.json() as { count?: number } | null)?.count ?? 0);
    } else {
      const counts = hostsPerWorkspace[0] as number[];
      for (const id of ids) count += counts[workspaceIndex[id] ?? -1] ?? 0;
    }
    filterTime.add(Date.now() - t1);
    visibleHosts.add(count);
    return ok;
  });
  endToEnd.add(Date.now() - t0);
}
