// Private PostgreSQL clusters: a primary and a streaming replica made from it with pg_basebackup, on
// their own data directories and ports. Run as the `postgres` user when started as root (initdb and
// the server refuse root).
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { type ManagedProcess, type ProcessRegistry, runToEnd, StartError, waitUntil } from "./processes.ts";

/** The newest server's binaries: PG_BIN, else the highest /usr/lib/postgresql/<major>/bin. */
export function postgresBinDir(): string | undefined {
  const fromEnv = process.env["PG_BIN"];
  if (fromEnv) return fromEnv;
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const majors = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? path.join(base, majors[0], "bin") : undefined;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

export interface PostgresPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops and starts the replica's server (`pg_ctl restart -m fast`). */
  restartReplica(): Promise<void>;
  pauseReplay(): Promise<void>;
  /** Resumes WAL replay and resolves once the replica has replayed everything the primary had written. */
  resumeReplayAndCatchUp(): Promise<void>;
  /** Bytes of WAL the primary has written past what the replica has replayed. */
  replayLagBytes(): Promise<number>;
  /** Resolves once the primary sees the replica streaming. */
  waitStreaming(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPostgresPair(registry: ProcessRegistry, dir: string, ports: { primary: number; replica: number }): Promise<PostgresPair> {
  const bin = postgresBinDir();
  if (!bin) throw new StartError("no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup): install Debian's postgresql package or set PG_BIN");
  const user = postgresUser();
  const own = (p: string): void => {
    mkdirSync(p, { recursive: true, mode: 0o700 });
    if (user) chownSync(p, user.uid, user.gid);
  };
  const primaryDir = path.join(dir, "pg-primary");
  const replicaDir = path.join(dir, "pg-replica");
  const socketDir = path.join(dir, "pg-sockets");
  own(primaryDir);
  own(replicaDir);
  own(socketDir);
  const run = (name: string, tool: string, args: string[]): Promise<void> =>
    runToEnd(registry, { name, command: path.join(bin, tool), args, cwd: dir, logFile: path.join(dir, `${name}.log`), ...(user ? { user } : {}) });

  await run("initdb", "initdb", ["-D", primaryDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  // The server itself runs in the foreground of its own process group, so the registry owns it.
  const startServer = (name: string, dataDir: string, port: number): ManagedProcess =>
    registry.start({
      name,
      command: path.join(bin, "postgres"),
      args: ["-D", dataDir, "-p", String(port), "-k", socketDir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300"],
      // Fast shutdown: SIGTERM (smart) would wait for every client to disconnect.
      stopSignal: "SIGINT",
      cwd: dir,
      logFile: path.join(dir, `${name}.log`),
      ...(user ? { user } : {}),
    });
  const primaryUrl = `postgres://postgres@127.0.0.1:${ports.primary}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${ports.replica}/postgres`;
  const query = async <T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const accepting = (url: string) => async () => (await query(url, "SELECT 1")).length === 1;

  const primary = startServer("postgres-primary", primaryDir, ports.primary);
  await waitUntil("postgres primary", accepting(primaryUrl), primary);
  await run("pg_basebackup", "pg_basebackup", ["-h", "127.0.0.1", "-p", String(ports.primary), "-U", "postgres", "-D", replicaDir, "-R", "-X", "stream", "-c", "fast"]);
  let replica = startServer("postgres-replica", replicaDir, ports.replica);
  await waitUntil("postgres replica", accepting(replicaUrl), replica);

  const waitStreaming = (): Promise<void> =>
    waitUntil("replication", async () => (await query<{ n: string }>(primaryUrl, "SELECT count(*) AS n FROM pg_stat_replication WHERE state = 'streaming'"))[0]?.n === "1");
  await waitStreaming();

  return {
    primaryUrl,
    replicaUrl,
    waitStreaming,
    restartReplica: async () => {
      await replica.stop();
      replica = startServer("postgres-replica", replicaDir, ports.replica);
      await waitUntil("postgres replica", accepting(replicaUrl), replica);
      await waitStreaming();
    },
    pauseReplay: async () => {
      await query(replicaUrl, "SELECT pg_wal_replay_pause()");
    },
    replayLagBytes: async () => {
      const [{ lsn } = { lsn: "" }] = await query<{ lsn: string }>(primaryUrl, "SELECT pg_current_wal_lsn()::text AS lsn");
      const [row] = await query<{ lag: string }>(replicaUrl, `SELECT pg_wal_lsn_diff('${lsn}'::pg_lsn, pg_last_wal_replay_lsn())::text AS lag`);
      return Number(row?.lag ?? 0);
    },
    resumeReplayAndCatchUp: async () => {
      const [{ lsn } = { lsn: "" }] = await query<{ lsn: string }>(primaryUrl, "SELECT pg_current_wal_lsn()::text AS lsn");
      await query(replicaUrl, "SELECT pg_wal_replay_resume()");
      await waitUntil("replica catch-up", async () => (await query<{ ok: boolean }>(replicaUrl, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS ok`))[0]?.ok === true);
    },
    stop: async () => {
      // The replica first, so it does not log the primary's disappearance.
      await replica.stop();
      await primary.stop();
    },
  };
}
