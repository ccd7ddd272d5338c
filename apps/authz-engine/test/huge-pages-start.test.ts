// The engine's process entry (src/main.ts) runs the engine with glibc's huge pages for large
// allocations: glibc reads GLIBC_TUNABLES only at process start, so the entry restarts itself once
// with it set. The engine must be that restarted process, and a signal to the entry must reach it.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
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

describe.runIf(process.platform === "linux")("the engine's process entry", () => {
  it("starts the engine in a process whose environment from its start holds glibc.malloc.hugetlb=1, and relays SIGTERM to it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gh-huge-pages-"));
    const { GLIBC_TUNABLES: _, GATEHOUSE_HUGE_PAGES: __, ...env } = process.env;
    const entry = spawn(process.execPath, ["--import", "tsx", "--conditions=source", main], {
      env: { ...env, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MIGRATE_ON_START: "true", AUTHZ_GRPC_PORT: "0", AUTHZ_METRICS_PORT: "0", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let engine: number | undefined;
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => entry.on("close", (code, signal) => resolve({ code, signal })));
    try {
      // Ready: the engine logs it once it serves (an event, not a timer).
      await new Promise<void>((resolve, reject) => {
        let out = "";
        entry.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('"authz engine ready"')) resolve();
        });
        entry.on("close", () => reject(new Error(`the engine stopped before it was ready:\n${out}`)));
      });
      const children = (await readFile(`/proc/${entry.pid}/task/${entry.pid}/children`, "utf8")).trim().split(/\s+/).filter(Boolean).map(Number);
      expect(children).toHaveLength(1);
      engine = children[0]!;
      expect((await environOf(engine)).get("GLIBC_TUNABLES")).toBe("glibc.malloc.hugetlb=1");
      expect((await environOf(entry.pid!)).has("GLIBC_TUNABLES")).toBe(false);
      expect((await readFile(`/proc/${engine}/cmdline`, "utf8")).split("\0")).toContain(main);
      entry.kill("SIGTERM");
      // The engine drains and exits 0; the entry exits with its status.
      expect(await closed).toEqual({ code: 0, signal: null });
    } finally {
      if (entry.exitCode === null && entry.signalCode === null) {
        // Failed midway: stop both processes this test started.
        if (engine !== undefined) process.kill(engine, "SIGKILL");
        entry.kill("SIGKILL");
      }
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
