// The browsers' access checks: inventory-api's HTTP/JSON CheckSelf (`POST /api/kessel/v1beta2/checkself`,
// the caller named by x-rh-identity) at check-mix's arrival rate and thresholds, through the public
// origin's `/api/kessel/` route.
//   k6 run -e MANIFEST=<manifest.json> -e HTTP_URL=http://host:port loadtest/k6/checkself-http.ts
import { check } from "k6";
import encoding from "k6/encoding";
import http from "k6/http";
import { Rate, Trend } from "k6/metrics";
import type { Options } from "k6/options";
import { hash32, hostId, userId } from "../shared/model.ts";
import { identityJson } from "../shared/requests.ts";
import { countingErrors } from "./lib/errors.ts";
import { env, load, thresholdsOf, withWarmup } from "./lib/common.ts";

const { file, manifest, scale } = load(open("../scenarios/scenarios.json"), open(env.manifestPath));
const s = file.scenarios["check-mix"];

const latency = new Trend("checkself_duration", true);
const errors = new Rate("checkself_errors");

export const options: Options = {
  scenarios: withWarmup("checkSelf", {
    executor: "constant-arrival-rate",
    rate: env.rate ?? (env.smoke ? s.smokeRate : s.rate),
    timeUnit: "1s",
    duration: env.duration ?? (env.smoke ? s.smokeDuration : s.duration),
    preAllocatedVUs: env.vus ?? s.preAllocatedVUs,
  }),
  thresholds: thresholdsOf("checkself_duration", s.thresholds, "checkself_errors", s.thresholds.errorRate, "checkSelf"),
};

// One identity header per measured principal, encoded once.
const identities = manifest.measured.map((p) => encoding.b64encode(identityJson(manifest.org, userId(p), false)));
let iteration = 0;

export default function (): void {
  countingErrors(errors, () => {
    const r = hash32(file.seed, 30, __VU * 1_000_003 + iteration++);
    const body = { object: { resourceType: "host", resourceId: hostId(r % scale.hosts), reporter: { type: "hbi" } }, relation: file.relations.check };
    const headers = { "content-type": "application/json", "x-rh-identity": identities[(r >>> 4) % identities.length] as string };
    const t0 = Date.now();
    const res = http.post(`${env.httpUrl}/api/kessel/v1beta2/checkself`, JSON.stringify(body), { headers });
    latency.add(Date.now() - t0);
    return check(res, {
      "200": (x) => x.status === 200,
      "allowed decided": (x) => ["ALLOWED_TRUE", "ALLOWED_FALSE"].includes(String((x.json() as { allowed?: string } | null)?.allowed ?? "")),
    });
  });
}
