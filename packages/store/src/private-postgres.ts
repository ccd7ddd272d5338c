// A PostgreSQL server a test owns: its own cluster (initdb) on a free port, which the test may
// restart, stop, or kill -9 without disturbing anyone else's database. Built from the machine's
// PostgreSQL binaries; initdb refuses to run as root, so under root every command runs as the
// `postgres` OS user.
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** `pg_ctl restart -m <mode>`: every connection is terminated (57P01 with `fast`). */
  restart(mode?: "fast" | "immediate"): Promise<void>;
  /** SIGKILL to the postmaster; resolves once it and every backend it had are gone. */
  kill(): Promise<void>;
  /** Starts the server again (after `kill` or `stop`). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The server's pid (postmaster), or null when it is not running. */
  pid(): number | null;
  /** Stops the server and deletes the cluster. */
  destroy(): Promise<void>;
}

/** Where initdb and pg_ctl are: PG_BIN, else the newest /usr/lib/postgresql/<major>/bin. */
export function postgresBinDir(): string | null {
  const fromEnv = process.env["PG_BIN"];
  if (fromEnv && existsSync(path.join(fromEnv, "pg_ctl"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(path.join(root, name, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? path.join(root, majors[0], "bin") : null;
}

/** uid and gid of the `postgres` OS user, when we are root (initdb refuses root). */
function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("Running as root, but there is no 'postgres' OS user to run PostgreSQL as.");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function run(file: string, args: string[], user: { uid: number; gid: number } | null): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...(user ?? {}), env: { ...process.env, LC_ALL: "C" }, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} ${args.join(" ")} failed: ${stderr || stdout || error.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** Running, and not a zombie (a killed server's parent may never reap it in a container). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

/** Pids whose parent is `parent` (Linux /proc). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command name (which may hold spaces): state, ppid, ...
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/**
 * initdb + pg_ctl start of a throw-away cluster. Throws when no PostgreSQL binaries are
 * installed (callers that must run in CI let that fail the test).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("No PostgreSQL server binaries found (set PG_BIN to the directory holding initdb and pg_ctl).");
  const user = postgresUser();
  const home = mkdtempSync(path.join(tmpdir(), "gatehouse-pg-"));
  const dataDir = path.join(home, "data");
  const logFile = path.join(home, "server.log");
  if (user) chownSync(home, user.uid, user.gid);
  await run(path.join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"], user);

  let port = 0;
  const pgCtl = (args: string[]) => run(path.join(bin, "pg_ctl"), ["-D", dataDir, "-l", logFile, ...args], user);
  const serverOptions = () => `-p ${port} -c unix_socket_directories='' -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60 -c shared_buffers=16MB`;
  const pid = (): number | null => {
    const file = path.join(dataDir, "postmaster.pid");
    if (!existsSync(file)) return null;
    const value = Number(readFileSync(file, "utf8").split("\n")[0]);
    return Number.isInteger(value) && value > 0 && isAlive(value) ? value : null;
  };

  const start = async (): Promise<void> => {
    try {
      await pgCtl(["-w", "-t", "120", "-o", serverOptions(), "start"]);
    } catch (error) {
      // The reason is in the server's log, not in pg_ctl's answer.
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-15).join("\n") : "";
      throw new Error(`${(error as Error).message}\n${log}`);
    }
  };

  // A port picked free can be taken before the server binds it; another one is tried then.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 4) {
        rmSync(home, { recursive: true, force: true });
        throw error;
      }
    }
  }

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    pid,
    start,
    async restart(mode = "fast") {
      await pgCtl(["-w", "-t", "120", "-m", mode, "-o", serverOptions(), "restart"]);
    },
    async kill() {
      const postmaster = pid();
      if (postmaster === null) throw new Error("The private PostgreSQL server is not running.");
      // The backends keep the shared memory (and so a new start refused) until they exit.
      const backends = childrenOf(postmaster);
      process.kill(postmaster, "SIGKILL");
      for (const gone of [postmaster, ...backends]) while (isAlive(gone)) await new Promise((resolve) => setTimeout(resolve, 20));
      // A killed postmaster that nobody reaps stays a zombie, which a new start would take for a
      // running server holding the lock file: the lock is stale, so it goes.
      rmSync(path.join(dataDir, "postmaster.pid"), { force: true });
    },
    async stop() {
      if (pid() !== null) await pgCtl(["-w", "-m", "immediate", "stop"]);
    },
    async destroy() {
      if (pid() !== null) await pgCtl(["-w", "-m", "immediate", "stop"]).catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
