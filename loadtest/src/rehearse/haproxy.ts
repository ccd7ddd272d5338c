// The HAProxy process and its runtime API (a unix socket): which servers are up, and draining one
// before its process is stopped, as a Service's endpoints drop a terminating pod.
import { writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { type ManagedProcess, type ProcessRegistry, waitUntil } from "./processes.ts";

export interface ServerStat {
  backend: string;
  server: string;
  /** UP, DOWN, DRAIN, MAINT, "UP 1/2" while a check is pending, ... */
  status: string;
  /** Sessions in progress. */
  current: number;
}

export class Haproxy {
  private constructor(
    readonly process: ManagedProcess,
    private readonly socket: string,
  ) {}

  static async start(registry: ProcessRegistry, dir: string, config: string, socket: string): Promise<Haproxy> {
    const file = path.join(dir, "haproxy.cfg");
    writeFileSync(file, config);
    // -db: stay in the foreground, so the registry owns the process.
    const p = registry.start({ name: "haproxy", command: "haproxy", args: ["-db", "-f", file], logFile: path.join(dir, "haproxy.log") });
    const proxy = new Haproxy(p, socket);
    await waitUntil("haproxy runtime API", async () => (await proxy.command("show info")).includes("Name: HAProxy"), p);
    return proxy;
  }

  /** One runtime API command and its whole answer. */
  command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const conn = net.createConnection(this.socket);
      let out = "";
      conn.setEncoding("utf8");
      conn.on("connect", () => conn.write(`${line}\n`));
      conn.on("data", (chunk: string) => {
        out += chunk;
      });
      conn.on("end", () => resolve(out));
      conn.on("error", reject);
    });
  }

  async servers(): Promise<ServerStat[]> {
    const [header, ...rows] = (await this.command("show stat")).trim().split("\n");
    const names = (header ?? "").replace(/^# /, "").split(",");
    const col = (name: string): number => names.indexOf(name);
    return rows
      .map((r) => r.split(","))
      .filter((f) => f[col("svname")] !== "FRONTEND" && f[col("svname")] !== "BACKEND")
      .map((f) => ({ backend: f[col("pxname")] ?? "", server: f[col("svname")] ?? "", status: f[col("status")] ?? "", current: Number(f[col("scur")]) }));
  }

  /** Resolves once every server named `server` (in every backend holding it) is in `status`. */
  async waitServer(server: string, status: "UP" | "DOWN" | "DRAIN" | "MAINT"): Promise<void> {
    await waitUntil(`haproxy: ${server} ${status}`, async () => {
      const rows = (await this.servers()).filter((s) => s.server === server);
      return rows.length > 0 && rows.every((s) => s.status === status);
    });
  }

  async waitAllUp(): Promise<void> {
    await waitUntil("haproxy: every server UP", async () => (await this.servers()).every((s) => s.status === "UP"), this.process);
  }

  /** `drain` (no new requests, those in progress finish) or `ready`, in every backend holding the server. */
  async setState(server: string, state: "drain" | "ready"): Promise<void> {
    for (const s of (await this.servers()).filter((x) => x.server === server)) {
      const answer = await this.command(`set server ${s.backend}/${s.server} state ${state}`);
      if (answer.trim() !== "") throw new Error(`haproxy: set server ${s.backend}/${s.server} state ${state}: ${answer.trim()}`);
    }
  }

  /** Resolves once no session is in progress on the server. */
  async waitIdle(server: string): Promise<void> {
    await waitUntil(`haproxy: ${server} idle`, async () => (await this.servers()).filter((s) => s.server === server).every((s) => s.current === 0));
  }
}
