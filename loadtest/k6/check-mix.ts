// gRPC Check / CheckForUpdate mix at a constant arrival rate, with p99 and error-rate thresholds.
//   k6 run -e MANIFEST=<manifest.json> -e GRPC_TARGET=host:port loadtest/k6/check-mix.ts
import { check } from "k6";
import { Rate, Trend } from "k6/metrics";
import grpc from "k6/net/grpc";
import type { Options } from "k6/options";
import { hash32, hostId } from "../shared/model.ts";
import { checkRequest } from "../shared/requests.ts";
import { countingErrors } from "./lib/errors.ts";
import { METHOD, env, grpcParams, inventory, load, measuredSubject, thresholdsOf, withWarmup } from "./lib/common.ts";

const { file, manifest, scale } = load(open("../scenarios/scenarios.json"), open(env.manifestPath));
const s = file.scenarios["check-mix"];

const latency = new Trend("check_mix_duration", true);
const errors = new Rate("check_mix_errors");

export const options: Options = {
  scenarios: withWarmup("checkMix", {
    executor: "constant-arrival-rate",
    rate: env.rate ?? (env.smoke ? s.smokeRate : s.rate),
    timeUnit: "1s",
    duration: env.duration ?? (env.smoke ? s.smokeDuration : s.duration),
    preAllocatedVUs: env.vus ?? s.preAllocatedVUs,
  }),
  thresholds: thresholdsOf("check_mix_duration", s.thresholds, "check_mix_errors", s.thresholds.errorRate, "checkMix"),
};

let iteration = 0;

export default function (): void {
  countingErrors(errors, () => {
    const r = hash32(file.seed, 10, __VU * 1_000_003 + iteration++);
    const update = (r >>> 8) % 1000 < s.checkForUpdateShare * 1000;
    const request = checkRequest(hostId(r % scale.hosts), update ? file.relations.checkForUpdate : file.relations.check, measuredSubject(manifest, r >>> 4));
    const t0 = Date.now();
    const response = inventory().invoke(METHOD(update ? "CheckForUpdate" : "Check"), request, grpcParams());
    latency.add(Date.now() - t0);
    return check(response, {
      "status OK": (res) => res.status === grpc.StatusOK,
      "allowed decided": (res) => ["ALLOWED_TRUE", "ALLOWED_FALSE"].includes((res.message as { allowed?: string } | null)?.allowed ?? ""),
    });
  });
}
