// One process per embedded data directory. PGlite keeps its database in memory and writes the
// files back as it goes: two processes (or two opens in one process) on the same directory
// overwrite each other's pages, leaving half-written organisations behind. A lock file in the
// directory names its holder; a second opener is refused with that name, and the lock of a
// process that no longer runs is taken over.
import { existsSync, linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StoreError } from "../errors.js";

export const LOCK_FILE = "gatehouse.lock";

interface Holder {
  pid: number;
  command: string;
  since: string;
  /** Linux: the process's start time in clock ticks (/proc/<pid>/stat), so a reused pid is not taken for the holder. */
  started?: string;
}

export interface DataDirLock {
  release(): void;
}

function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces); starttime is field 22 of the line.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function running(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    // EPERM: the process exists (another user's).
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const started = startTicks(holder.pid);
  return holder.started === undefined || started === undefined || started === holder.started;
}

function readHolder(file: string): { text: string; holder: Holder | null } | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (typeof parsed.pid === "number" && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      return {
        text,
        holder: {
          pid: parsed.pid,
          command: String(parsed.command ?? "").slice(0, 200),
          since: String(parsed.since ?? "").slice(0, 40),
          ...(parsed.started ? { started: String(parsed.started) } : {}),
        },
      };
    }
  } catch {
    // A torn or foreign file: nobody can be named, so it counts as stale.
  }
  return { text, holder: null };
}

function refusal(dataDir: string, holder: Holder): StoreError {
  const who = holder.pid === process.pid ? `this process (pid ${holder.pid})` : `process ${holder.pid} (${holder.command || "command unknown"})`;
  return new StoreError(
    "unavailable",
    `The data directory ${dataDir} is in use by ${who} since ${holder.since || "an unknown time"}. Only one process may open an embedded data directory: stop that process first, or use its server instead (or DATABASE_URL for a shared PostgreSQL).`,
  );
}

/** Takes the directory's lock or throws a StoreError naming the process that holds it. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const mine: Holder = {
    pid: process.pid,
    command: process.argv
      .slice(1)
      .map((a) => a.split("/").pop() ?? a)
      .join(" ")
      .slice(0, 200),
    since: new Date().toISOString(),
    ...(startTicks(process.pid) ? { started: startTicks(process.pid)! } : {}),
  };
  const content = `${JSON.stringify(mine)}\n`;
  // Each round either creates the file, refuses, or removes one stale lock; a few rounds settle any race.
  for (let round = 0; round < 5; round++) {
    try {
      writeFileSync(file, content, { flag: "wx" });
      return held(file, content);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const current = readHolder(file);
    if (!current) continue;
    if (current.holder && running(current.holder)) throw refusal(dataDir, current.holder);
    // Stale: move it aside (atomic, so of two takers only one moves it) and make sure what was
    // moved is the stale lock read above, not a lock another taker just created.
    const aside = `${file}.stale-${process.pid}-${round}`;
    try {
      renameSync(file, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    const moved = readFileSync(aside, "utf8");
    if (moved !== current.text) {
      // Another process's fresh lock: put it back (unless yet another exists) and look again.
      try {
        linkSync(aside, file);
      } catch {
        // a lock is in place again either way
      }
    }
    unlinkSync(aside);
  }
  const last = readHolder(file);
  if (last?.holder) throw refusal(dataDir, last.holder);
  throw new StoreError("unavailable", `The data directory ${dataDir} could not be locked (${LOCK_FILE} keeps changing).`);
}

function held(file: string, content: string): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener("exit", release);
    // Only our own lock: never one another process took over in between.
    try {
      if (existsSync(file) && readFileSync(file, "utf8") === content) unlinkSync(file);
    } catch {
      // already gone
    }
  };
  // A process that exits without closing the store leaves no lock behind; a crash leaves a
  // stale one, taken over by the next opener.
  process.on("exit", release);
  return { release };
}
