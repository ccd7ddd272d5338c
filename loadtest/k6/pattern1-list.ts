// Pattern 1 list for comparison: post-filtering every host of the organisation, either with
// CheckBulk in batches of 1,000 (full pass) or with one Check per host (on a sample).
//   k6 run -e MANIFEST=<manifest.json> -e GRPC_TARGET=host:port loadtest/k6/pattern1-list.ts
import { check } from "k6";
import { Counter, Rate, Trend } from "k6/metrics";
import grpc from "k6/net/grpc";
import type { Options } from "k6/options";
import { hostId } from "../shared/model.ts";
import { checkBulkRequest, checkRequest } from "../shared/requests.ts";
import { countingErrors } from "./lib/errors.ts";
import { METHOD, env, grpcParams, inventory, load, measuredSubject } from "./lib/common.ts";

const { file, manifest, scale } = load(open("../scenarios/scenarios.json"), open(env.manifestPath));
const bulk = file.scenarios["pattern1-checkbulk"];
const single = file.scenarios["pattern1-check"];
const sample = Math.min(scale.hosts, env.smoke ? single.smokeSampleHosts : single.sampleHosts);
const subject = measuredSubject(manifest, 0);

const passTime = new Trend("pattern1_checkbulk_pass_duration", true);
const batchTime = new Trend("pattern1_checkbulk_batch_duration", true);
const checkTime = new Trend("pattern1_check_duration", true);
const allowedHosts = new Counter("pattern1_allowed_hosts");
const errors = new Rate("pattern1_errors");

// PATTERN1=checkbulk|check runs one of the two; by default both run, one after the other
// (CHECK_START, default 2m, is when the per-host Checks begin) so they never share the CPU.
const only = __ENV["PATTERN1"];
const scenarios: NonNullable<Options["scenarios"]> = {};
if (only !== "check") {
  scenarios["checkBulk"] = { executor: "per-vu-iterations", vus: 1, iterations: env.smoke ? bulk.smokeIterations : bulk.iterations, exec: "checkBulkPass", maxDuration: "30m" };
}
if (only !== "checkbulk") {
  const startTime = only === "check" ? "0s" : (__ENV["CHECK_START"] ?? (env.smoke ? "10s" : "2m"));
  scenarios["perHostCheck"] = { executor: "shared-iterations", vus: env.vus ?? single.concurrency, iterations: sample, exec: "perHostCheck", startTime, maxDuration: "30m" };
}

export const options: Options = { scenarios, thresholds: { pattern1_errors: ["rate<=0"] } };

/** One full pass: every host, in batches of 1,000 (sequential: one VU is one list request). */
export function checkBulkPass(): void {
  const t0 = Date.now();
  for (let start = 0; start < scale.hosts; start += bulk.batchSize) {
    countingErrors(errors, () => {
      const hosts: string[] = [];
      for (let h = start; h < Math.min(scale.hosts, start + bulk.batchSize); h++) hosts.push(hostId(h));
      const b0 = Date.now();
      const res = inventory().invoke(METHOD("CheckBulk"), checkBulkRequest(hosts, file.relations.contingent, subject), grpcParams());
      batchTime.add(Date.now() - b0);
      const pairs = (res.message as { pairs?: { item?: { allowed?: string } }[] } | null)?.pairs ?? [];
      allowedHosts.add(pairs.filter((p) => p.item?.allowed === "ALLOWED_TRUE").length);
      return check(res, { "CheckBulk OK": (r) => r.status === grpc.StatusOK });
    });
  }
  passTime.add(Date.now() - t0);
}

/** One Check per sampled host, spread evenly over the host range. */
export function perHostCheck(): void {
  countingErrors(errors, () => {
    const i = (__ITER * (env.vus ?? single.concurrency) + (__VU - 1)) % sample;
    const h = Math.floor((i * scale.hosts) / sample);
    const t0 = Date.now();
    const res = inventory().invoke(METHOD("Check"), checkRequest(hostId(h), file.relations.contingent, subject), grpcParams());
    checkTime.add(Date.now() - t0);
    return check(res, { "Check OK": (r) => r.status === grpc.StatusOK });
  });
}
