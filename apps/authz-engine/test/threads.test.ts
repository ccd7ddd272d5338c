// The engine on two threads (EngineConfig.threads): both answer from one graph in shared memory,
// every answer is the single-threaded evaluator's at the revision its token names, even while the
// first thread applies commits and moves the shared base on; a thread that dies is replaced and
// no answer is wrong meanwhile.
import { status, type ServiceError } from "@grpc/grpc-js";
import { check, compileSchema, parseSchema, RelationshipGraph } from "@gatehouse/evaluator";
import { openStore, type Relationship, type Store } from "@gatehouse/store";
import { Agent, get, request } from "node:http";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileRoleSchema } from "@gatehouse/role-config";
import { decodeCheckpoint, memoryCheckpointStore, schemaHash } from "../src/graph/checkpoint.js";
import type { ThreadMetrics } from "../src/metrics.js";
import { call, ownConnection, principal, readGrant, stageSchema, startEngine, workspace, type RunningEngine } from "./helpers.js";

const ORG = "threads-org";
const USERS = 6;
const CONNECTIONS = 8;

/** Every relationship as of each revision written here, for the evaluator to answer from. */
class History {
  private readonly states = new Map<number, Relationship[]>();
  private latest: Relationship[] = [];
  private readonly model = compileSchema(parseSchema(stageSchema));
  private readonly graphs = new Map<number, RelationshipGraph>();
  base: number;

  constructor(base: number, initial: Relationship[]) {
    this.base = base;
    this.latest = initial;
    this.states.set(base, initial);
  }

  record(revision: number, touch: Relationship[], remove: Relationship[]): void {
    const key = (r: Relationship) => JSON.stringify(r);
    const gone = new Set(remove.map(key));
    const kept = this.latest.filter((r) => !gone.has(key(r)));
    const have = new Set(kept.map(key));
    this.latest = [...kept, ...touch.filter((r) => !have.has(key(r)))];
    this.states.set(revision, this.latest);
  }

  /** The evaluator's answer at `revision` (the newest state recorded at or before it). */
  allowed(revision: number, workspaceId: string, userId: string): boolean {
    let at = this.base;
    for (const r of this.states.keys()) if (r <= revision && r > at) at = r;
    let graph = this.graphs.get(at);
    if (!graph) {
      graph = new RelationshipGraph(this.model);
      for (const r of this.states.get(at)!) graph.add(r);
      this.graphs.set(at, graph);
    }
    return check(graph, { type: "rbac/workspace", id: workspaceId }, "view", { type: "rbac/principal", id: `redhat/${userId}` });
  }
}

describe("checks on two threads over one shared graph", () => {
  let store: Store;
  let engine: RunningEngine;
  let history: History;
  let ws: string;

  beforeAll(async () => {
    store = await openStore({ pollIntervalMs: 20 });
    const tenant = (await store.tenants.bootstrap(ORG)).value;
    ws = tenant.defaultWorkspaceId;
    const initial = readGrant(ws, "u0");
    const { revision } = await store.relationships.write(ORG, { touch: initial });
    engine = await startEngine({ threads: 2 }, store);
    history = new History(revision, await store.relationships.read(ORG, { includePublic: true }));
  });

  afterAll(async () => {
    await engine?.close();
    await store?.close();
  });

  it("starts a second thread that serves on the same port", () => {
    expect(engine.server.threads()?.running.length).toBe(1);
  });

  /** Check calls each thread answered (its own metrics), by thread. */
  async function checksByThread(): Promise<Map<number, number>> {
    const all = await engine.server.threads()!.allMetrics();
    const checks = ({ metrics }: ThreadMetrics) =>
      (metrics.find((m) => m.name === "grpc_server_handled_total")?.values ?? []).filter((v) => v.labels["grpc_method"] === "Check").reduce((sum, v) => sum + v.value, 0);
    return new Map(all.map((t) => [t.thread, checks(t)]));
  }

  /** Check calls the second thread answered (its own metrics). */
  async function workerChecks(): Promise<number> {
    return (await checksByThread()).get(1) ?? 0;
  }

  const checkOn = (client: ReturnType<typeof ownConnection>, user: string) => call(client, "check", { object: workspace(ws), relation: "view", subject: { resource: principal(user) } });

  /**
   * CONNECTIONS connections of which at least one the second thread serves. The kernel spreads
   * connections by a hash (SO_REUSEPORT), so eight may all land on one thread (1 in 128): connections
   * are opened one at a time, each asked once, until the second thread's own count moves (a bound
   * of 64 tries, not a time).
   */
  async function spreadConnections(): Promise<ReturnType<typeof ownConnection>[]> {
    const clients: ReturnType<typeof ownConnection>[] = [];
    const spare: ReturnType<typeof ownConnection>[] = [];
    let onWorker = false;
    for (let tries = 0; tries < 64 && (!onWorker || clients.length < CONNECTIONS); tries++) {
      const before = await workerChecks();
      const client = ownConnection(engine);
      await checkOn(client, "u0");
      const served = (await workerChecks()) > before;
      if (served && !onWorker) {
        onWorker = true;
        clients.push(client);
      } else if (clients.length < CONNECTIONS - (onWorker ? 0 : 1)) clients.push(client);
      else spare.push(client);
    }
    for (const client of spare) client.close();
    expect(onWorker).toBe(true);
    return clients;
  }

  /** Checks on many connections until `done`; every answer compared with the evaluator's at its revision. */
  async function hammer(done: () => boolean, failures: ServiceError[], connections?: ReturnType<typeof ownConnection>[]): Promise<number> {
    const clients = connections ?? (await spreadConnections());
    let answered = 0;
    const mismatches: string[] = [];
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; !done() || i < 20; i++) {
          const user = `u${(c + i) % USERS}`;
          try {
            const response = await checkOn(client, user);
            const revision = store.tokens.decode(response.consistencyToken!.token);
            const expected = history.allowed(revision, ws, user);
            if ((response.allowed === 1) !== expected) mismatches.push(`${user} at ${revision}: ${response.allowed}`);
            answered++;
          } catch (error) {
            failures.push(error as ServiceError);
          }
        }
      }),
    );
    for (const client of clients) client.close();
    expect(mismatches).toEqual([]);
    return answered;
  }

  it("answers every check as the evaluator does at the revision it reports, while commits apply", async () => {
    let writing = true;
    const failures: ServiceError[] = [];
    const checking = hammer(() => !writing, failures);
    // Grants come and go; enough changes to move the shared base on (pool.ts) several times.
    for (let w = 0; w < 40; w++) {
      const user = `u${1 + (w % (USERS - 1))}`;
      const grant = readGrant(ws, user);
      const filler = Array.from({ length: 150 }, (_, i) => ({ resourceType: "hbi/host", resourceId: `h-${w}-${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: ws }));
      const adding = w % 10 < 5;
      const write = adding ? { touch: [...grant, ...filler] } : { delete: grant.slice(3), touch: filler };
      const { revision } = await store.relationships.write(ORG, write);
      history.record(revision, write.touch, "delete" in write ? (write.delete ?? []) : []);
    }
    writing = false;
    const answered = await checking;
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(CONNECTIONS * 20);
    // The second thread answered some of them (the kernel spread the connections over both).
    expect(await workerChecks()).toBeGreaterThan(0);
  });

  /** GET `path` on the agent's one connection. */
  const httpGet = (agent: Agent, path: string) =>
    new Promise<string>((resolve, reject) => {
      get({ host: "127.0.0.1", port: engine.metricsPort, path, agent }, (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve(text));
      }).on("error", reject);
    });

  /** POST `body` as JSON on the agent's one connection (as user u0 of the org); the answer's status and JSON. */
  const httpPost = (agent: Agent, path: string, body: unknown) =>
    new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-rh-identity": encodeIdentityHeader({ orgId: ORG, userId: "u0", username: "u0" }) };
      request({ host: "127.0.0.1", port: engine.metricsPort, path, method: "POST", agent, headers }, (response) => {
        let answer = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(answer) as Record<string, unknown> }));
      })
        .on("error", reject)
        .end(text);
    });

  /** HTTP calls each thread answered (its own metrics), by thread. */
  async function httpCallsByThread(): Promise<Map<number, number>> {
    const all = await engine.server.threads()!.allMetrics();
    const calls = ({ metrics }: ThreadMetrics) =>
      (metrics.find((m) => m.name === "http_request_duration_seconds")?.values ?? [])
        .filter((v) => (v as { metricName?: string }).metricName === "http_request_duration_seconds_count")
        .reduce((sum, v) => sum + v.value, 0);
    return new Map(all.map((t) => [t.thread, calls(t)]));
  }

  it("serves HTTP/JSON on both threads: a host reported through either is seen by CheckForUpdate on the other", async () => {
    // A keep-alive connection per thread, told apart by count: an HTTP call on it raises the count
    // of the thread that took it (fresh connections until each thread has one; a bound of 64 tries).
    const agents = new Map<number, Agent>();
    for (let tries = 0; tries < 64 && agents.size < 2; tries++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const before = await httpCallsByThread();
      await httpGet(agent, "/api/kessel/v1/livez");
      const took = [...(await httpCallsByThread())].find(([thread, calls]) => calls > (before.get(thread) ?? 0))?.[0];
      if (took !== undefined && !agents.has(took)) agents.set(took, agent);
      else agent.destroy();
    }
    expect([...agents.keys()].sort()).toEqual([0, 1]);
    for (const [writer, reader] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const id = `thread-host-${writer}`;
      const reported = await httpPost(agents.get(writer)!, "/api/kessel/v1beta2/resources", {
        type: "host",
        reporterType: "hbi",
        reporterInstanceId: "hbi-instance",
        representations: { metadata: { localResourceId: id, apiHref: `https://hbi/hosts/${id}` }, common: { workspace_id: ws } },
        writeVisibility: "IMMEDIATE",
      });
      expect(reported.status).toBe(200);
      const checked = await httpPost(agents.get(reader)!, "/api/kessel/v1beta2/checkforupdate", {
        object: { resourceType: "host", resourceId: id, reporter: { type: "hbi" } },
        relation: "view",
        subject: { resource: principal("u0") },
      });
      expect(checked).toMatchObject({ status: 200, json: { allowed: "ALLOWED_TRUE" } });
    }
    for (const agent of agents.values()) agent.destroy();
  });

  /** The sum of the series of `name` whose line has every label in `labels`, in Prometheus text. */
  const sumOf = (text: string, name: string, ...labels: string[]) =>
    text
      .split("\n")
      .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && labels.every((label) => line.includes(label)))
      .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);

  it("a scrape that lands on either thread reports the calls of both: one exposition for the process", async () => {
    const before = await checksByThread();
    // Both threads answered checks above; no call is in flight now.
    expect(before.get(0)).toBeGreaterThan(0);
    expect(before.get(1)).toBeGreaterThan(0);
    const checks = (before.get(0) ?? 0) + (before.get(1) ?? 0);
    const scrapedOn = new Set<string>();
    // Fresh connections until a scrape was taken by each thread (the kernel picks by a hash: a bound
    // of 64 tries, not a time). On each, an HTTP/JSON call first: the thread whose count of calls it
    // raised took the connection, and so the scrape after it.
    for (let tries = 0; tries < 64 && scrapedOn.size < 2; tries++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const callsBefore = await httpGet(agent, "/metrics");
      await httpGet(agent, "/api/kessel/v1/livez");
      const text = await httpGet(agent, "/metrics");
      agent.destroy();
      expect(sumOf(text, "grpc_server_handled_total", 'grpc_method="Check"')).toBe(checks);
      expect(sumOf(text, "gatehouse_engine_threads")).toBe(2);
      // The process's figures once, not once per thread.
      expect(text.match(/^process_resident_memory_bytes /gm)).toHaveLength(1);
      for (const thread of ["0", "1"]) {
        const label = `thread="${thread}"`;
        if (sumOf(text, "gatehouse_engine_thread_calls_total", label) === sumOf(callsBefore, "gatehouse_engine_thread_calls_total", label) + 1) scrapedOn.add(thread);
        expect(sumOf(text, "gatehouse_engine_thread_heap_used_bytes", label)).toBeGreaterThan(0);
      }
    }
    expect([...scrapedOn].sort()).toEqual(["0", "1"]);
  });

  it("holds the objects commits add once: the second thread finds each where the first wrote it, and copies no object array", async () => {
    const threads = engine.server.threads()!;
    const figure = (all: ThreadMetrics[], thread: number, name: string) =>
      (all.find((t) => t.thread === thread)?.metrics.find((m) => m.name === name)?.values ?? []).reduce((sum, v) => sum + v.value, 0);
    const before = await threads.allMetrics();
    // New objects (hosts and a user), in commits of a few hundred: each thread adds them to its graph.
    let token = "";
    for (let w = 0; w < 5; w++) {
      const hosts = Array.from({ length: 300 }, (_, i) => ({ resourceType: "hbi/host", resourceId: `room-${w}-${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: ws }));
      const grant = readGrant(ws, `room-user-${w}`);
      const { revision } = await store.relationships.write(ORG, { touch: [...hosts, ...grant] });
      history.record(revision, [...hosts, ...grant], []);
      token = store.tokens.encode(revision);
    }
    // Every connection asks at least as fresh as the last write, so each thread has applied it.
    const clients = await spreadConnections();
    for (const client of clients) {
      const answer = await call(client, "check", { object: workspace(ws), relation: "view", subject: { resource: principal("room-user-4") }, consistency: { atLeastAsFresh: { token } } });
      expect(answer.allowed).toBe(1);
      client.close();
    }
    const after = await threads.allMetrics();
    const objects = "gatehouse_engine_graph_objects";
    const own = "gatehouse_engine_graph_own_object_bytes";
    expect(figure(after, 1, objects)).toBeGreaterThanOrEqual(figure(before, 1, objects) + 1500);
    expect(figure(after, 1, objects)).toBe(figure(after, 0, objects));
    expect([figure(after, 0, own), figure(after, 1, own)]).toEqual([0, 0]);
  });

  it("replaces a thread that dies; no answer is wrong, failures are UNAVAILABLE at most", async () => {
    const threads = engine.server.threads()!;
    const before = threads.started;
    let killed = false;
    const failures: ServiceError[] = [];
    const clients = await spreadConnections();
    const baseline = await workerChecks();
    const checking = hammer(() => killed && threads.started > before && threads.running.length === 1, failures, clients);
    // Fail it once it is answering some of the calls (a count of its answers, not a time).
    for (let polls = 0; (await workerChecks()) === baseline && polls < 10_000; polls++) await new Promise((resolve) => setImmediate(resolve));
    expect(await workerChecks()).toBeGreaterThan(baseline);
    threads.fail(1);
    killed = true;
    await checking;
    for (const failure of failures) expect([status.UNAVAILABLE, status.CANCELLED, status.INTERNAL]).toContain(failure.code);
    expect(threads.started).toBe(before + 1);
    // The new thread serves the latest writes too.
    const grant = readGrant(ws, "late");
    const { revision } = await store.relationships.write(ORG, { touch: grant });
    history.record(revision, grant, []);
    await hammer(() => true, []);
  });
});

describe("checkpoints written by the first of two threads", () => {
  it("hold every object the commits added (written into the shared base's room): a checked decode reads them all back", async () => {
    const store = await openStore({ pollIntervalMs: 20 });
    const org = "threads-ckpt-org";
    const ws = (await store.tenants.bootstrap(org)).value.defaultWorkspaceId;
    await store.relationships.write(org, { touch: readGrant(ws, "c0") });
    // Each checkpoint written is announced: the test waits for one at the last write's revision.
    const checkpoints = memoryCheckpointStore();
    const written: Array<(revision: number) => void> = [];
    const write = checkpoints.write.bind(checkpoints);
    checkpoints.write = async (revision, bytes) => {
      await write(revision, bytes);
      for (const notify of written) notify(revision);
    };
    const engine = await startEngine({ threads: 2, checkpoint: { store: checkpoints, intervalMs: 20 } }, store);
    try {
      let last = 0;
      for (let w = 0; w < 3; w++) {
        const hosts = Array.from({ length: 200 }, (_, i) => ({ resourceType: "hbi/host", resourceId: `ckpt-${w}-${i}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: ws }));
        ({ revision: last } = await store.relationships.write(org, { touch: [...hosts, ...readGrant(ws, `ckpt-user-${w}`)] }));
      }
      await new Promise<void>((resolve) => written.push((revision) => revision >= last && resolve()));
      expect(engine.server.threads()!.running.length).toBe(1);
      // The first thread's new objects are in the shared base's room, not in arrays of its own.
      const first = (await engine.server.threads()!.allMetrics()).find((t) => t.thread === 0)!;
      expect(first.metrics.find((m) => m.name === "gatehouse_engine_graph_own_object_bytes")?.values[0]?.value).toBe(0);
      const [newest] = await checkpoints.list();
      expect(newest!.revision).toBeGreaterThanOrEqual(last);
      const model = compileRoleSchema(stageSchema);
      const { graph } = decodeCheckpoint(await checkpoints.read(newest!.key), model, { storeId: store.storeId, schemaHash: schemaHash(model) });
      const key = (r: Relationship) => `${r.resourceType}:${r.resourceId}#${r.relation}@${r.subjectType}:${r.subjectId}${r.subjectRelation ? `#${r.subjectRelation}` : ""}`;
      const held = new Set([...graph.relationships()].map(key));
      const stored = await store.relationships.read(org, { includePublic: true });
      for (const r of stored) expect(held.has(key(r)), key(r)).toBe(true);
      expect(check(graph, { type: "hbi/host", id: "ckpt-2-199" }, "view", { type: "rbac/principal", id: "redhat/ckpt-user-2" })).toBe(true);
    } finally {
      await engine.close();
      await store.close();
    }
  });
});
