// One process per embedded data directory, proven with real processes: a second opener is refused
// with the holder's pid, command and start time, a killed holder's lock is taken over, and of two
// processes racing for a fresh directory exactly one opens it.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";

const holderScript = fileURLToPath(new URL("./support/hold-data-dir.ts", import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "gh-lock-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Holder {
  child: ChildProcess;
  /** The next line matching `matches` (already printed or still to come). */
  line(matches: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

function spawnHolder(dir: string): Holder {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", holderScript, dir], { stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let waiters: { matches: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    for (const part of parts) {
      const parsed = JSON.parse(part) as Record<string, unknown>;
      lines.push(parsed);
      waiters = waiters.filter((w) => !(w.matches(parsed) && (w.resolve(parsed), true)));
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    line(matches) {
      const seen = lines.find(matches);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ matches, resolve });
        void exited.then(() => reject(new Error(`holder exited; it printed ${JSON.stringify(lines)}`)));
      });
    },
  };
}

const opened = (l: Record<string, unknown>) => "opened" in l || "refused" in l;

describe("embedded data directory lock", () => {
  it("refuses a second process, naming the holder's pid, command and start time, and changes nothing", async () => {
    const dir = await freshDir();
    const holder = spawnHolder(dir);
    expect(await holder.line(opened)).toEqual({ opened: holder.child.pid });
    holder.child.stdin!.write("org-a\n");
    await holder.line((l) => l["bootstrapped"] === "org-a");

    const error = await openStore({ dataDir: dir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unavailable" });
    const message = (error as Error).message;
    expect(message).toContain(`in use by process ${holder.child.pid} (`);
    expect(message).toContain("hold-data-dir.ts");
    expect(message).toMatch(/since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

    // The holder is unaffected: it still writes, and after it closes, a new opener sees its data.
    holder.child.stdin!.write("org-b\n");
    await holder.line((l) => l["bootstrapped"] === "org-b");
    holder.child.stdin!.end();
    expect(await holder.exited).toBe(0);
    const store = await openStore({ dataDir: dir });
    try {
      expect((await store.tenants.get("org-a"))?.orgId).toBe("org-a");
      expect((await store.tenants.get("org-b"))?.orgId).toBe("org-b");
    } finally {
      await store.close();
    }
  });

  it("takes over the lock of a process that was killed", async () => {
    const dir = await freshDir();
    const holder = spawnHolder(dir);
    expect(await holder.line(opened)).toEqual({ opened: holder.child.pid });
    holder.child.stdin!.write("org-k\n");
    await holder.line((l) => l["bootstrapped"] === "org-k");
    holder.child.kill("SIGKILL");
    await holder.exited;
    expect(JSON.parse(await readFile(join(dir, "gatehouse.lock"), "utf8")).pid).toBe(holder.child.pid);

    const store = await openStore({ dataDir: dir });
    try {
      expect((await store.tenants.get("org-k"))?.orgId).toBe("org-k");
      expect(JSON.parse(await readFile(join(dir, "gatehouse.lock"), "utf8")).pid).toBe(process.pid);
    } finally {
      await store.close();
    }
  });

  it("lets exactly one of two processes racing for a fresh directory open it", async () => {
    const dir = await freshDir();
    const racers = [spawnHolder(dir), spawnHolder(dir)];
    const outcomes = await Promise.all(racers.map((r) => r.line(opened)));
    expect(outcomes.filter((o) => "opened" in o)).toHaveLength(1);
    const refused = outcomes.find((o) => "refused" in o)!;
    const winner = racers[outcomes.findIndex((o) => "opened" in o)]!;
    expect(refused["refused"]).toContain(`in use by process ${winner.child.pid} (`);
    winner.child.stdin!.end();
    await Promise.all(racers.map((r) => r.exited));
  });

  it("refuses a second open in the same process", async () => {
    const dir = await freshDir();
    const store = await openStore({ dataDir: dir });
    try {
      await expect(openStore({ dataDir: dir })).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining(`in use by this process (pid ${process.pid})`) });
    } finally {
      await store.close();
    }
    // Closed: the lock is gone and the directory opens again.
    await (await openStore({ dataDir: dir })).close();
  });
});
