// Test helpers of @gatehouse/cache (entry `@gatehouse/cache/testing`): a throwaway Redis server that
// a test may stop and restart, which the machine's shared Redis must never be.
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";

export interface ThrowawayRedis {
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL: like a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, no persistence). */
  restart(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.write("PING\r\n");
        socket.once("data", (d) => {
          socket.destroy();
          resolve(d.toString().startsWith("+PONG"));
        });
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server on port ${port} did not start within ${timeoutMs} ms`);
}

/** Spawns `redis-server` on a free port with persistence off. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await waitForPort(port, 300_000); // a bound against a hang: a loaded machine starts processes slowly
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  };
  await launch();
  return { url: `redis://127.0.0.1:${port}`, port, stop: kill, restart: launch };
}

/** `REDIS_URL` (default the local Redis) when it answers; under `CI=true` it must answer. */
export async function sharedRedisUrl(): Promise<string> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const { hostname, port } = new URL(url);
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname);
    socket.setTimeout(1_000, () => (socket.destroy(), resolve(false)));
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
  if (reachable) return url;
  if (process.env.CI === "true") throw new Error(`Redis at ${url} is required under CI=true but is unreachable`);
  // Outside CI a developer may not run Redis: the suite still runs, on a server of its own.
  return (await startThrowawayRedis()).url;
}
