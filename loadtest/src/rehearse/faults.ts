// The faults, one at a time, each timed from its first action to the moment everything it touched is
// back in rotation (ready and routed). Steps wait on events (readiness, HAProxy's server state,
// replication), never on sleeps; only the steady periods between faults are paced by the clock.
import pg from "pg";
import { httpOk, waitUntil } from "./processes.ts";
import type { AppInstance, Topology } from "./topology.ts";

export interface FaultRecord {
  name: string;
  what: string;
  /** ms on the traffic's clock */
  start: number;
  recovered: number;
  notes: string[];
}

export interface FaultOptions {
  /** Steady time before the first fault and between faults, ms. */
  steadyMs: number;
  /** How long the replica's replay stays paused at least (writes keep landing meanwhile), ms; 0: until an engine was replaced on it and it is behind. */
  replicaPauseMs: number;
  now: () => number;
  log: (line: string) => void;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A replica's graceful replacement, as a rolling update does it: out of rotation, drained, stopped, started, ready, back in. */
async function replace(topo: Topology, app: AppInstance): Promise<void> {
  await topo.haproxy.setState(app.name, "drain");
  await topo.haproxy.waitIdle(app.name);
  await app.stop();
  await app.start();
  await topo.haproxy.setState(app.name, "ready");
  await topo.haproxy.waitServer(app.name, "UP");
}

function startedFrom(app: AppInstance): string {
  const log = app.log();
  if (log.includes("relationship checkpoint loaded")) return "from a checkpoint";
  if (log.includes("relationship snapshot loaded")) return "from the whole snapshot";
  return "(start not logged)";
}

async function checkpointCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM gh_checkpoints")).rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export async function runFaults(topo: Topology, o: FaultOptions): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  const fault = async (name: string, what: string, body: (notes: string[]) => Promise<void>): Promise<void> => {
    await pause(o.steadyMs);
    const notes: string[] = [];
    const start = o.now();
    o.log(`fault: ${name}`);
    await body(notes);
    const recovered = o.now();
    o.log(`fault: ${name} recovered after ${((recovered - start) / 1000).toFixed(1)} s`);
    records.push({ name, what, start, recovered, notes });
  };
  const [engine1, engine2] = topo.engines as [AppInstance, AppInstance];

  // The killed replica must come back from a checkpoint: wait until one has been written (the
  // replicas write them every AUTHZ_CHECKPOINT_INTERVAL_SECONDS) and has reached the replica.
  await waitUntil("a graph checkpoint on the replica", async () => (await checkpointCount(topo.databaseReadUrl)) > 0, undefined, 1000);
  await fault("engine kill -9", `kill -9 of ${engine1.name} (its process group), restarted with the same settings; back when ready and UP in HAProxy`, async (notes) => {
    const killed = o.now();
    await engine1.kill9();
    await topo.haproxy.waitServer(engine1.name, "DOWN");
    notes.push(`HAProxy's checks took it out of rotation ${((o.now() - killed) / 1000).toFixed(1)} s after the kill`);
    const t0 = o.now();
    await engine1.start();
    notes.push(`restarted ${startedFrom(engine1)}, ready ${((o.now() - t0) / 1000).toFixed(1)} s after its start`);
    await topo.haproxy.waitServer(engine1.name, "UP");
  });

  await fault("management API rolling restart", "each management API in turn: drained in HAProxy, SIGTERM (its own drain), started again, ready, back in rotation", async () => {
    for (const api of topo.managementApis) await replace(topo, api);
  });

  await fault("Postgres replica restart", "fast shutdown and start of the streaming replica (the engines' DATABASE_READ_URL); back when streaming again", async () => {
    await topo.postgres.restartReplica();
  });

  await fault("Redis restart", "redis-server stopped and started empty on the same port; back when the workspace cache reports Redis up again", async () => {
    await topo.redis.stop();
    await topo.redis.start();
    await waitUntil("workspace cache: Redis up again", () => httpOk(topo.cache.readyUrl, (body) => !body.includes("degraded")));
  });

  await fault(
    "replica behind",
    `WAL replay paused on the replica for at least ${(o.replicaPauseMs / 1000).toFixed(0)} s and until it is behind, while writes continue, and ${engine2.name} replaced meanwhile (it loads from the lagging replica, then follows the primary's change feed); back when replay has caught up`,
    async (notes) => {
      await topo.postgres.pauseReplay();
      const paused = o.now();
      await replace(topo, engine2);
      notes.push(`${engine2.name} restarted ${startedFrom(engine2)} while the replica lagged`);
      const left = o.replicaPauseMs - (o.now() - paused);
      if (left > 0) await pause(left);
      // Bounded by the event, not only the clock: the replica is behind (writes landed on the primary since the pause).
      await waitUntil("the replica behind the primary", async () => (await topo.postgres.replayLagBytes()) > 0, undefined, 100);
      notes.push(`the replica ${((await topo.postgres.replayLagBytes()) / 1024).toFixed(0)} KiB of WAL behind when replay resumed, ${((o.now() - paused) / 1000).toFixed(1)} s after the pause`);
      await topo.postgres.resumeReplayAndCatchUp();
    },
  );
  await pause(o.steadyMs);
  return records;
}
