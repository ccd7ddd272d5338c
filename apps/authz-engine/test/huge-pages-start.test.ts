// The engine's process entry (src/main.ts) runs the engine with glibc's huge pages for large
// allocations: glibc reads GLIBC_TUNABLES only at process start, so the entry restarts itself once
// with it set. The restart must be invisible from outside: the engine is that restarted process, a
// SIGTERM to the entry drains it as it would drain itself, its exit (a code or a signal) is the
// entry's, and /metrics' process figures are the serving process's. Every wait is on an event (a
// log line, a process's close), never a timer.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));

async function environOf(pid: number): Promise<Map<string, string>> {
  // Started with one tunable only: glibc's parser cuts this copy at a ':' between tunables.
  const entries = (await readFile(`/proc/${pid}/environ`, "latin1")).split("\0").filter(Boolean);
  return new Map(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}

interface Started {
  entry: ChildProcessWithoutNullStreams;
  /** The entry's exit: its code, or the signal it died of. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** JSON log lines so far (the engine logs to stdout). */
  lines: Record<string, unknown>[];
  /** Resolves with the first log line whose msg is `msg` (rejects if the entry ends first). */
  logged(msg: string): Promise<Record<string, unknown>>;
  cleanup(): Promise<void>;
}

async function startEntry(extraEnv: Record<string, string> = {}): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), "gh-huge-pages-"));
  const { GLIBC_TUNABLES: _, GATEHOUSE_HUGE_PAGES: __, ...env } = process.env;
  const entry = spawn(process.execPath, ["--import", "tsx", "--conditions=source", main], {
    env: { ...env, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MIGRATE_ON_START: "true", AUTHZ_GRPC_PORT: "0", AUTHZ_METRICS_PORT: "0", LOG_LEVEL: "info", ...extraEnv },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => entry.on("close", (code, signal) => resolve({ code, signal })));
  const lines: Record<string, unknown>[] = [];
  const waiters: { msg: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let partial = "";
  const take = (chunk: Buffer) => {
    partial += chunk.toString();
    const complete = partial.split("\n");
    partial = complete.pop() ?? "";
    for (const text of complete) {
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const w of waiters.filter((w) => w.msg === line["msg"])) w.resolve(line);
    }
  };
  entry.stdout.on("data", take);
  entry.stderr.on("data", take);
  return {
    entry,
    closed,
    lines,
    logged: (msg) =>
      new Promise((resolve, reject) => {
        const found = lines.find((l) => l["msg"] === msg);
        if (found) return resolve(found);
        waiters.push({ msg, resolve });
        void closed.then(() => reject(new Error(`the entry ended before logging "${msg}":\n${lines.map((l) => JSON.stringify(l)).join("\n")}`)));
      }),
    async cleanup() {
      if (entry.exitCode === null && entry.signalCode === null) entry.kill("SIGKILL");
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function childOf(pid: number): Promise<number> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8")).trim().split(/\s+/).filter(Boolean).map(Number);
  expect(children).toHaveLength(1);
  return children[0]!;
}

const rssBytes = async (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const metricOf = (text: string, name: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${name} `))
      ?.split(" ")[1],
  );

describe.runIf(process.platform === "linux")("the engine's process entry", () => {
  it("serves from a second process started with glibc.malloc.hugetlb=1, reports that process's figures, and drains it on SIGTERM", async () => {
    const started = await startEntry();
    let engine: number | undefined;
    try {
      const ready = await started.logged("authz engine ready");
      engine = await childOf(started.entry.pid!);
      // The serving process is the second one, with the tunable from its start; the entry has none.
      expect((await environOf(engine)).get("GLIBC_TUNABLES")).toBe("glibc.malloc.hugetlb=1");
      expect((await environOf(started.entry.pid!)).has("GLIBC_TUNABLES")).toBe(false);
      expect((await readFile(`/proc/${engine}/cmdline`, "utf8")).split("\0")).toContain(main);

      // /metrics' process figures are read by the serving process about itself: its resident
      // memory and open descriptors, not the entry's (which holds little of either).
      const metrics = await (await fetch(`http://127.0.0.1:${ready["metricsPort"]}/metrics`)).text();
      const [rss, engineRss, entryRss] = [metricOf(metrics, "process_resident_memory_bytes"), await rssBytes(engine), await rssBytes(started.entry.pid!)];
      expect(Math.abs(rss - engineRss)).toBeLessThan(Math.abs(rss - entryRss));
      const [fds, engineFds, entryFds] = [metricOf(metrics, "process_open_fds"), (await readdir(`/proc/${engine}/fd`)).length, (await readdir(`/proc/${started.entry.pid}/fd`)).length];
      expect(Math.abs(fds - engineFds)).toBeLessThan(Math.abs(fds - entryFds));

      started.entry.kill("SIGTERM");
      // The engine drains (its own shutdown, logged by it) and exits 0; the entry exits with its status.
      expect(await started.closed).toEqual({ code: 0, signal: null });
      expect(started.lines.find((l) => l["msg"] === "shutting down")).toMatchObject({ signal: "SIGTERM" });
      expect(started.lines.some((l) => l["msg"] === "authz engine stopped")).toBe(true);
      // Relayed once: the engine began its drain once.
      expect(started.lines.filter((l) => l["msg"] === "shutting down")).toHaveLength(1);
    } finally {
      if (engine !== undefined && started.entry.exitCode === null) process.kill(engine, "SIGKILL");
      await started.cleanup();
    }
  }, 600_000);

  it("ends as the engine ends: killed by a signal, the entry dies of the same signal", async () => {
    const started = await startEntry();
    try {
      await started.logged("authz engine ready");
      process.kill(await childOf(started.entry.pid!), "SIGKILL");
      expect(await started.closed).toEqual({ code: null, signal: "SIGKILL" });
    } finally {
      await started.cleanup();
    }
  }, 600_000);

  it("ends as the engine ends: a failed start's exit code is the entry's", async () => {
    // A setting the engine refuses: it logs why and exits 1 (the entry logs nothing of its own).
    const started = await startEntry({ AUTHZ_MAX_CONNECTIONS: "0" });
    try {
      const outcome = await started.closed;
      const fatal = started.lines.find((l) => l["level"] === 60);
      expect(fatal?.["msg"]).toMatch(/AUTHZ_MAX_CONNECTIONS/);
      expect(outcome).toEqual({ code: 1, signal: null });
    } finally {
      await started.cleanup();
    }
  }, 600_000);
});
