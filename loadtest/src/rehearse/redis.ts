// A private redis-server on its own port (no persistence: Redis is a cache here), restartable.
import net from "node:net";
import path from "node:path";
import { type ManagedProcess, type ProcessRegistry, waitUntil } from "./processes.ts";

export class RedisServer {
  private process: ManagedProcess | undefined;

  private constructor(
    private readonly registry: ProcessRegistry,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async start(registry: ProcessRegistry, dir: string, port: number): Promise<RedisServer> {
    const redis = new RedisServer(registry, dir, port);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = this.registry.start({
      name: "redis",
      command: "redis-server",
      args: ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.dir],
      logFile: path.join(this.dir, "redis.log"),
    });
    await waitUntil("redis PING", () => this.ping(), this.process);
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }

  ping(): Promise<boolean> {
    return new Promise((resolve) => {
      const conn = net.createConnection(this.port, "127.0.0.1");
      conn.setEncoding("utf8");
      conn.setTimeout(2000, () => conn.destroy());
      conn.on("connect", () => conn.write("PING\r\n"));
      conn.on("data", (d: string) => {
        resolve(d.startsWith("+PONG"));
        conn.end();
      });
      conn.on("error", () => resolve(false));
      conn.on("close", () => resolve(false));
    });
  }
}
