// Each scenario of scenarios.json as a Node function over the public interfaces. The k6 scripts
// in ../k6 implement the same definitions for k6; both read the same JSON and shared modules.
import type { Manifest } from "../shared/manifest.ts";
import { defaultLevelPrincipals, durationMs, hash32, hostId, hostWorkspaceIndex, scaleOf, userId, type ScenarioFile } from "../shared/model.ts";
import { batchCreateBody, checkBulkRequest, checkRequest, listWorkspacesRequest, principalSubject } from "../shared/requests.ts";
import type { AppDb } from "./app-db.ts";
import { listAllWorkspaces, type InventoryClient } from "./grpc-client.ts";
import { Latencies, type LatencySummary } from "./histogram.ts";
import type { ManagementClient } from "./http-client.ts";
import { closedLoop, openLoop, type LoadOutcome } from "./load.ts";

export interface ScenarioContext {
  file: ScenarioFile;
  manifest: Manifest;
  grpc: InventoryClient;
  http: ManagementClient;
  appDb: AppDb;
  smoke: boolean;
}

export interface ScenarioRun {
  outcome: LoadOutcome;
  /** What one measured "request" is (an RPC, a full list, a full pass over all hosts). */
  unit: string;
  extra: Record<string, number | string>;
  parts?: Record<string, LatencySummary>;
}

const subjectOf = (ctx: ScenarioContext, i: number, principals: number[] = ctx.manifest.measured) => principalSubject(ctx.manifest.domain, userId(principals[i % principals.length]!));
const hostCount = (ctx: ScenarioContext) => scaleOf(ctx.file, ctx.manifest.scaleName).hosts;

export async function floor(ctx: ScenarioContext): Promise<ScenarioRun> {
  // Same arrival rate as check-mix, so the two latencies differ only by the authorization work.
  const s = ctx.file.scenarios.floor;
  const mix = ctx.file.scenarios["check-mix"];
  const outcome = await openLoop(ctx.smoke ? mix.smokeRate : mix.rate, durationMs(ctx.smoke ? s.smokeDuration : s.duration), mix.preAllocatedVUs, () => ctx.grpc.health());
  return { outcome, unit: "GetLivez RPC", extra: { dropped: outcome.dropped } };
}

export async function checkMix(ctx: ScenarioContext): Promise<ScenarioRun> {
  const s = ctx.file.scenarios["check-mix"];
  const { relations } = ctx.file;
  let allowed = 0;
  const outcome = await openLoop(ctx.smoke ? s.smokeRate : s.rate, durationMs(ctx.smoke ? s.smokeDuration : s.duration), s.preAllocatedVUs, async (i) => {
    const r = hash32(ctx.file.seed, 10, i);
    const host = hostId(r % hostCount(ctx));
    const update = (r >>> 8) % 1000 < s.checkForUpdateShare * 1000;
    const response = await ctx.grpc.unary<{ allowed?: string }>(update ? "CheckForUpdate" : "Check", checkRequest(host, update ? relations.checkForUpdate : relations.check, subjectOf(ctx, r >>> 4)));
    if (response.allowed === "ALLOWED_TRUE") allowed++;
    else if (response.allowed !== "ALLOWED_FALSE") throw new Error(`unexpected allowed value ${response.allowed}`);
  });
  return { outcome, unit: "Check/CheckForUpdate RPC", extra: { allowedShare: outcome.requests ? allowed / outcome.requests : 0, dropped: outcome.dropped } };
}

/** Pattern 2 for one subject: accessible workspaces (streamed), then the application's query. */
async function pattern2Once(ctx: ScenarioContext, subject: ReturnType<typeof subjectOf>, stream: Latencies, sql: Latencies) {
  const s = ctx.file.scenarios["pattern2-list"];
  const t0 = performance.now();
  const workspaces = await listAllWorkspaces(ctx.grpc, (token) => listWorkspacesRequest(ctx.file.relations.contingent, subject, s.pageSize, token));
  const t1 = performance.now();
  const result = await ctx.appDb.filtered(workspaces, s.appPageSize);
  stream.recordMs(t1 - t0);
  sql.recordMs(performance.now() - t1);
  return { workspaces, count: result.count, page: result.page };
}

/** `principals`: by default the measured ones, more than the engine's lookup cache holds. */
export async function pattern2(ctx: ScenarioContext, variant: "pattern2-list" | "pattern2-list-broad" = "pattern2-list"): Promise<ScenarioRun> {
  const s = ctx.file.scenarios[variant];
  const principals = variant === "pattern2-list" ? ctx.manifest.measured : defaultLevelPrincipals(scaleOf(ctx.file, ctx.manifest.scaleName));
  const stream = new Latencies();
  const sql = new Latencies();
  let workspaces = 0;
  let hosts = 0;
  const outcome = await closedLoop(s.concurrency, { durationMs: durationMs(ctx.smoke ? s.smokeDuration : s.duration) }, async (i) => {
    const r = await pattern2Once(ctx, subjectOf(ctx, i, principals), stream, sql);
    workspaces += r.workspaces.length;
    hosts += r.count;
  });
  const n = Math.max(1, outcome.requests);
  return {
    outcome,
    unit: "list (stream + SQL)",
    extra: { meanWorkspaces: Math.round(workspaces / n), meanHostsVisible: Math.round(hosts / n), subjects: principals.length },
    parts: { "StreamedListObjects (all pages)": stream.summary(), "filtered SQL (count + page)": sql.summary() },
  };
}

/** The reference answer for subject 0: which hosts Pattern 2 says the subject may see. */
export async function pattern2Answer(ctx: ScenarioContext): Promise<{ visible: Set<string>; count: number }> {
  const r = await pattern2Once(ctx, subjectOf(ctx, 0), new Latencies(), new Latencies());
  return { visible: new Set(r.workspaces), count: r.count };
}

export async function pattern1Bulk(ctx: ScenarioContext, answer: { count: number }): Promise<ScenarioRun> {
  const s = ctx.file.scenarios["pattern1-checkbulk"];
  const total = hostCount(ctx);
  const subject = subjectOf(ctx, 0);
  const batches = new Latencies();
  let allowed = -1;
  const outcome = await closedLoop(1, { iterations: ctx.smoke ? s.smokeIterations : s.iterations }, async () => {
    let passAllowed = 0;
    const starts = Array.from({ length: Math.ceil(total / s.batchSize) }, (_, b) => b * s.batchSize);
    const run = await closedLoop(s.concurrency, { iterations: starts.length }, async (b) => {
      const hosts = Array.from({ length: Math.min(s.batchSize, total - starts[b]!) }, (_, k) => hostId(starts[b]! + k));
      const response = await ctx.grpc.unary<{ pairs: { item?: { allowed: string }; error?: { message: string } }[] }>("CheckBulk", checkBulkRequest(hosts, ctx.file.relations.contingent, subject));
      for (const pair of response.pairs) {
        if (pair.error) throw new Error(`CheckBulk item failed: ${pair.error.message}`);
        if (pair.item?.allowed === "ALLOWED_TRUE") passAllowed++;
      }
    });
    if (run.errors > 0) throw new Error(run.firstError);
    batches.add(run.latencies);
    allowed = passAllowed;
  });
  if (allowed !== -1 && allowed !== answer.count) {
    outcome.errors++;
    outcome.firstError ??= `CheckBulk allowed ${allowed} hosts but Pattern 2 found ${answer.count}`;
  }
  return {
    outcome,
    unit: `pass over ${total} hosts`,
    extra: { allowedHosts: allowed, pattern2Hosts: answer.count, sameAnswer: allowed === answer.count ? "yes" : "NO" },
    parts: { [`CheckBulk batch of ${s.batchSize}`]: batches.summary() },
  };
}

export async function pattern1Check(ctx: ScenarioContext, answer: { visible: Set<string> }): Promise<ScenarioRun> {
  const s = ctx.file.scenarios["pattern1-check"];
  const total = hostCount(ctx);
  const sample = Math.min(total, ctx.smoke ? s.smokeSampleHosts : s.sampleHosts);
  const subject = subjectOf(ctx, 0);
  let mismatches = 0;
  // Hosts spread evenly over the index range, so the sample covers every workspace region.
  const outcome = await closedLoop(s.concurrency, { iterations: sample }, async (i) => {
    const h = Math.floor((i * total) / sample);
    const response = await ctx.grpc.unary<{ allowed?: string }>("Check", checkRequest(hostId(h), ctx.file.relations.contingent, subject));
    const expected = answer.visible.has(ctx.manifest.workspaceIds[hostWorkspaceIndex(ctx.file.seed, h, ctx.manifest.workspaceIds.length)]!);
    if ((response.allowed === "ALLOWED_TRUE") !== expected) mismatches++;
  });
  const throughput = outcome.requests / (outcome.elapsedMs / 1000);
  return {
    outcome,
    unit: "Check RPC",
    extra: { sampleHosts: sample, extrapolatedFullPassMs: Math.round((total / throughput) * 1000), mismatchesWithPattern2: mismatches },
  };
}

export async function managementMix(ctx: ScenarioContext): Promise<ScenarioRun> {
  const s = ctx.file.scenarios["management-mix"];
  const w = s.weights;
  const counts = { workspaceList: 0, roleList: 0, batchCreate: 0 };
  const ws = ctx.manifest.workspaceIds;
  const outcome = await closedLoop(s.concurrency, { durationMs: durationMs(ctx.smoke ? s.smokeDuration : s.duration) }, async (i) => {
    const r = (hash32(ctx.file.seed, 20, i) % 1000) / 1000;
    if (r < w.workspaceList) {
      counts.workspaceList++;
      await ctx.http.get(`/api/rbac/v2/workspaces/?limit=100&offset=${(i * 100) % Math.max(1, ws.length)}`);
    } else if (r < w.workspaceList + w.roleList) {
      counts.roleList++;
      await ctx.http.get("/api/rbac/v2/roles/?limit=100");
    } else {
      counts.batchCreate++;
      // Bind the (unmeasured) default-level group somewhere: the measured subjects' answers stay put.
      const workspaceId = ws[hash32(ctx.file.seed, 21, i) % ws.length]!;
      await ctx.http.post("/api/rbac/v2/role-bindings:batchCreate/", batchCreateBody([{ workspaceId, groupId: ctx.manifest.levelGroupIds.default, roleId: ctx.manifest.roleIds.hostsOnly }]));
    }
  });
  return { outcome, unit: "HTTP request", extra: counts };
}
