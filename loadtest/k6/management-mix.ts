// Management API mix: workspace list, role list and role-binding batchCreate.
//   k6 run -e MANIFEST=<manifest.json> -e HTTP_URL=http://host:8000 loadtest/k6/management-mix.ts
import { check } from "k6";
import http from "k6/http";
import { Rate, Trend } from "k6/metrics";
import type { Options } from "k6/options";
import { hash32 } from "../shared/model.ts";
import { batchCreateBody } from "../shared/requests.ts";
import { countingErrors } from "./lib/errors.ts";
import { env, httpHeaders, load, thresholdsOf, withWarmup } from "./lib/common.ts";

const { file, manifest } = load(open("../scenarios/scenarios.json"), open(env.manifestPath));
const s = file.scenarios["management-mix"];
const headers = httpHeaders(manifest.org);
const ws = manifest.workspaceIds;

const latency = new Trend("management_duration", true);
const errors = new Rate("management_errors");

export const options: Options = {
  scenarios: withWarmup("management", { executor: "constant-vus", vus: env.vus ?? s.concurrency, duration: env.duration ?? (env.smoke ? s.smokeDuration : s.duration) }),
  thresholds: thresholdsOf("management_duration", s.thresholds, "management_errors", s.thresholds.errorRate, "management"),
};

let iteration = 0;

export default function (): void {
  countingErrors(errors, () => {
    const i = __VU * 1_000_003 + iteration++;
    const r = (hash32(file.seed, 20, i) % 1000) / 1000;
    const t0 = Date.now();
    let res;
    if (r < s.weights.workspaceList) {
      res = http.get(`${env.httpUrl}/api/rbac/v2/workspaces/?limit=100&offset=${(i * 100) % Math.max(1, ws.length)}`, { headers, tags: { op: "workspaceList" } });
    } else if (r < s.weights.workspaceList + s.weights.roleList) {
      res = http.get(`${env.httpUrl}/api/rbac/v2/roles/?limit=100`, { headers, tags: { op: "roleList" } });
    } else {
      // The default-level group is never measured, so these bindings leave the check answers alone.
      const workspaceId = ws[hash32(file.seed, 21, i) % ws.length] as string;
      const body = batchCreateBody([{ workspaceId, groupId: manifest.levelGroupIds.default, roleId: manifest.roleIds.hostsOnly }]);
      res = http.post(`${env.httpUrl}/api/rbac/v2/role-bindings:batchCreate/`, JSON.stringify(body), { headers, tags: { op: "batchCreate" } });
    }
    latency.add(Date.now() - t0);
    return check(res, { "2xx": (x) => x.status >= 200 && x.status < 300 });
  });
}
