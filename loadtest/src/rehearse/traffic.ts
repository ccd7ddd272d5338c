// The traffic the rehearsal watches while faults happen, all through the ingress (the workspace cache
// directly, as in-cluster clients reach it):
// - a Check mix at a constant arrival rate on the data set's hosts and measured principals; nothing
//   the rehearsal writes changes those answers, so each must equal the answer after the run;
// - writes through the management API (a new workspace under the default workspace) one at a time,
//   each followed by checks with the write's consistency token, alternately over gRPC and the
//   HTTP/JSON route: a principal bound at the default workspace must be allowed on it at once (and one
//   who is not must be denied);
// - management API reads and the workspace cache's root lookup.
// Every request is a sample (time, kind, ok, latency); the report cuts them by fault window.
import type { Manifest } from "../../shared/manifest.ts";
import { defaultLevelPrincipals, hostId, scaleOf, type ScenarioFile, userId } from "../../shared/model.ts";
import { checkRequest, principalSubject } from "../../shared/requests.ts";
import { connectInventory, type InventoryClient } from "../grpc-client.ts";
import { connectionFailure, identityHeader } from "../http-client.ts";
import { forEachLimited } from "../pool.ts";

export type SampleKind = "check" | "write" | "fresh-check" | "management-read" | "cache-lookup";

export interface Sample {
  /** ms since the traffic started */
  t: number;
  kind: SampleKind;
  ok: boolean;
  ms: number;
  error?: string;
}

export interface AckedWrite {
  id: string;
  name: string;
  token: string;
  /** ms since the traffic started, when the write was acknowledged */
  t: number;
}

export interface TrafficResult {
  samples: Sample[];
  writes: AckedWrite[];
  /** Checks compared with the answer after the run. */
  checksCompared: number;
  /** Checks made with a write's token. */
  freshChecks: number;
  /** Each answer that contradicts a write or the answer after the run, described. */
  wrongAnswers: string[];
  /** Acknowledged writes missing after the run. */
  lostWrites: string[];
}

export interface TrafficOptions {
  file: ScenarioFile;
  manifest: Manifest;
  ingressUrl: string;
  ingressGrpc: string;
  cacheUrl: string;
  /** Check mix arrivals per second. */
  checkRate: number;
  /** A name prefix unique to this run (the written workspaces' names). */
  runId: string;
}

const V2 = "/api/rbac/v2";
const MAX_IN_FLIGHT = 64;
const ADMIN = "lt-admin";

type Allowed = "ALLOWED_TRUE" | "ALLOWED_FALSE";

function workspaceRef(id: string) {
  return { resource_type: "workspace", resource_id: id, reporter: { type: "rbac" } };
}

/** protojson (lowerCamel) of a workspace Check at a token, for the HTTP/JSON route. */
function httpCheckBody(id: string, relation: string, domain: string, user: string, token: string) {
  return {
    object: { resourceType: "workspace", resourceId: id, reporter: { type: "rbac" } },
    relation,
    subject: { resource: { resourceType: "principal", resourceId: `${domain}/${user}`, reporter: { type: "rbac" } } },
    consistency: { atLeastAsFresh: { token } },
  };
}

function describe(error: unknown): string {
  return (error instanceof Error ? connectionFailure(error) : String(error)).slice(0, 200);
}

export class Traffic {
  private readonly started = performance.now();
  private readonly samples: Sample[] = [];
  private readonly writes: AckedWrite[] = [];
  private readonly answers = new Map<string, Set<Allowed>>();
  private readonly wrong: string[] = [];
  private freshChecks = 0;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly grpc: InventoryClient;
  private readonly identity: string;
  private readonly allowedUser: string;
  private readonly deniedUser: string;

  constructor(private readonly o: TrafficOptions) {
    this.grpc = connectInventory(o.ingressGrpc);
    this.identity = identityHeader(o.file.org, ADMIN, true);
    const scale = scaleOf(o.file, o.manifest.scaleName);
    this.allowedUser = userId(defaultLevelPrincipals(scale)[0]!);
    // A measured principal is in a standard group, bound on a few standard workspaces only.
    this.deniedUser = userId(o.manifest.measured[0]!);
  }

  now(): number {
    return performance.now() - this.started;
  }

  start(): void {
    this.loops.push(this.checkMix(), this.writeLoop(), this.readLoop(), this.cacheLoop());
  }

  private record(kind: SampleKind, t0: number, ok: boolean, error?: unknown): void {
    this.samples.push({ t: t0 - this.started, kind, ok, ms: performance.now() - t0, ...(ok ? {} : { error: describe(error) }) });
  }

  private async checkMix(): Promise<void> {
    const { file, manifest } = this.o;
    const period = 1000 / this.o.checkRate;
    let inFlight = 0;
    let n = 0;
    const first = performance.now();
    const pending = new Set<Promise<void>>();
    while (!this.stopping) {
      const due = first + n * period;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      n += 1;
      if (inFlight >= MAX_IN_FLIGHT) {
        // The driver's own limit, not the server's: counted apart, never as a failed request.
        continue;
      }
      const host = hostId((n * 7919) % manifest.hostsLoaded);
      const user = userId(manifest.measured[n % manifest.measured.length]!);
      const t0 = performance.now();
      inFlight += 1;
      const call = this.grpc
        .unary<{ allowed?: Allowed }>("Check", checkRequest(host, file.relations.check, principalSubject(manifest.domain, user)))
        .then(
          (answer) => {
            this.record("check", t0, answer.allowed === "ALLOWED_TRUE" || answer.allowed === "ALLOWED_FALSE");
            const key = `${host} ${user}`;
            const seen = this.answers.get(key) ?? new Set<Allowed>();
            if (answer.allowed) seen.add(answer.allowed);
            this.answers.set(key, seen);
          },
          (error: unknown) => this.record("check", t0, false, error),
        )
        .finally(() => {
          inFlight -= 1;
          pending.delete(call);
        });
      pending.add(call);
    }
    await Promise.all(pending);
  }

  private async fetchIngress(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.o.ingressUrl}${path}`, {
      ...init,
      headers: { "x-rh-identity": this.identity, "content-type": "application/json", ...(init.headers as Record<string, string>) },
      signal: AbortSignal.timeout(30_000),
    });
  }

  /** Writes one at a time; each acknowledged write is checked with its token until answered. */
  private async writeLoop(): Promise<void> {
    const { manifest, file } = this.o;
    let n = 0;
    while (!this.stopping) {
      n += 1;
      const name = `${this.o.runId}-${n}`;
      const t0 = performance.now();
      let write: AckedWrite | undefined;
      try {
        const response = await this.fetchIngress(`${V2}/workspaces/`, { method: "POST", body: JSON.stringify({ name, description: "rehearsal write", parent_id: manifest.defaultWorkspaceId }) });
        const body = await response.text();
        const token = response.headers.get("x-gatehouse-consistency-token");
        if (response.status !== 201 || !token) throw new Error(`POST workspaces answered ${response.status}: ${body.slice(0, 200)}`);
        write = { id: (JSON.parse(body) as { id: string }).id, name, token, t: performance.now() - this.started };
        this.record("write", t0, true);
        this.writes.push(write);
      } catch (error) {
        this.record("write", t0, false, error);
        continue;
      }
      for (const [user, expected] of [
        [this.allowedUser, "ALLOWED_TRUE"],
        [this.deniedUser, "ALLOWED_FALSE"],
      ] as const) {
        const overHttp = n % 2 === 0;
        const answer = await this.answeredCheck(write, user, overHttp, file.relations.contingent);
        this.freshChecks += 1;
        if (answer !== expected) this.wrong.push(`${overHttp ? "HTTP/JSON" : "gRPC"} check of ${user} on new workspace ${write.id} with its write's token: ${answer}, expected ${expected}`);
      }
    }
  }

  /** A check with the write's token, repeated through failures (each failure is a sample) until answered. */
  private async answeredCheck(write: AckedWrite, user: string, overHttp: boolean, relation: string): Promise<string> {
    const domain = this.o.manifest.domain;
    for (;;) {
      const t0 = performance.now();
      try {
        let allowed: string | undefined;
        if (overHttp) {
          const response = await this.fetchIngress("/api/kessel/v1beta2/check", { method: "POST", body: JSON.stringify(httpCheckBody(write.id, relation, domain, user, write.token)) });
          const body = await response.text();
          if (response.status !== 200) throw new Error(`HTTP check answered ${response.status}: ${body.slice(0, 200)}`);
          allowed = (JSON.parse(body) as { allowed?: string }).allowed;
        } else {
          const request = { object: workspaceRef(write.id), relation, subject: principalSubject(domain, user), consistency: { at_least_as_fresh: { token: write.token } } };
          allowed = (await this.grpc.unary<{ allowed?: string }>("Check", request)).allowed;
        }
        this.record("fresh-check", t0, true);
        return allowed ?? "(no answer)";
      } catch (error) {
        this.record("fresh-check", t0, false, error);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private async readLoop(): Promise<void> {
    await forEachLimited(0, 2, 2, async () => {
      while (!this.stopping) {
        const t0 = performance.now();
        try {
          const response = await this.fetchIngress(`${V2}/workspaces/?limit=20`);
          await response.text();
          if (response.status !== 200) throw new Error(`GET workspaces answered ${response.status}`);
          this.record("management-read", t0, true);
        } catch (error) {
          this.record("management-read", t0, false, error);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    });
  }

  private async cacheLoop(): Promise<void> {
    while (!this.stopping) {
      const t0 = performance.now();
      try {
        const response = await fetch(`${this.o.cacheUrl}${V2}/workspaces/?type=root`, { headers: { "x-rh-rbac-org-id": this.o.file.org }, signal: AbortSignal.timeout(10_000) });
        const body = await response.text();
        if (response.status !== 200) throw new Error(`workspace cache answered ${response.status}: ${body.slice(0, 200)}`);
        const id = (JSON.parse(body) as { data?: { id?: string }[] }).data?.[0]?.id;
        if (id !== this.o.manifest.rootWorkspaceId) this.wrong.push(`workspace cache: root workspace ${id}, expected ${this.o.manifest.rootWorkspaceId}`);
        this.record("cache-lookup", t0, true);
      } catch (error) {
        this.record("cache-lookup", t0, false, error);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops the traffic, then compares what was answered with the state after the run. */
  async stop(): Promise<TrafficResult> {
    this.stopping = true;
    await Promise.all(this.loops);
    const lostWrites: string[] = [];
    const last = this.writes.at(-1)?.token;
    // Every acknowledged write is still there.
    await forEachLimited(0, this.writes.length, 8, async (i) => {
      const w = this.writes[i]!;
      const response = await this.fetchIngress(`${V2}/workspaces/${w.id}/`);
      const body = await response.text();
      if (response.status !== 200 || (JSON.parse(body) as { name?: string }).name !== w.name) lostWrites.push(`${w.name} (${w.id}): GET answered ${response.status}`);
    });
    // Every Check answered during the run equals the answer after it (nothing written changes them).
    const keys = [...this.answers.keys()];
    await forEachLimited(0, keys.length, 32, async (i) => {
      const key = keys[i]!;
      const [host, user] = key.split(" ") as [string, string];
      const request = {
        ...checkRequest(host, this.o.file.relations.check, principalSubject(this.o.manifest.domain, user)),
        ...(last ? { consistency: { at_least_as_fresh: { token: last } } } : {}),
      };
      const after = (await this.grpc.unary<{ allowed?: Allowed }>("Check", request)).allowed;
      for (const seen of this.answers.get(key)!) if (seen !== after) this.wrong.push(`check of ${user} on host ${host}: ${seen} during the run, ${after} after it`);
    });
    this.grpc.close();
    return { samples: this.samples, writes: this.writes, checksCompared: keys.length, freshChecks: this.freshChecks, wrongAnswers: this.wrong, lostWrites };
  }
}
