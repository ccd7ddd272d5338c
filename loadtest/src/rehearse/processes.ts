// Child processes of the rehearsal: each in its own process group (a "pod": kill -9 takes the whole
// group, the engine's huge-pages relaunch included), output to a log file, and remembered so that
// everything started is stopped again, on success, failure or Ctrl+C.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logFile: string;
  /** Run as this user (Postgres refuses root). */
  user?: { uid: number; gid: number };
  /** The signal that asks for a graceful stop (default SIGTERM). */
  stopSignal?: NodeJS.Signals;
}

export class ManagedProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  constructor(readonly spec: ProcessSpec) {
    const fd = openSync(spec.logFile, "a");
    this.child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      stdio: ["ignore", fd, fd],
      detached: true,
      ...(spec.user ? { uid: spec.user.uid, gid: spec.user.gid } : {}),
    });
    closeSync(fd);
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exitCode = code ?? (signal ? null : 0);
        resolve(this.exitCode);
      });
      this.child.once("error", () => {
        this.exitCode = -1;
        resolve(-1);
      });
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.spec.name} did not start`);
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  log(tailBytes = 4000): string {
    try {
      return readFileSync(this.spec.logFile, "utf8").slice(-tailBytes);
    } catch {
      return "";
    }
  }

  /** A signal to the process group; ignored once it is gone. */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // already gone
    }
  }

  /** The graceful stop signal, then SIGKILL if the group is still there after `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    if (!this.running) return;
    this.signal(this.spec.stopSignal ?? "SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  async kill9(): Promise<void> {
    this.signal("SIGKILL");
    await this.exited;
  }
}

/** Every process the rehearsal started, stopped in reverse order of starting. */
export class ProcessRegistry {
  private readonly processes: ManagedProcess[] = [];

  start(spec: ProcessSpec): ManagedProcess {
    const p = new ManagedProcess(spec);
    this.processes.push(p);
    return p;
  }

  async stopAll(): Promise<void> {
    for (const p of [...this.processes].reverse()) await p.stop();
  }
}

export class StartError extends Error {
  override readonly name = "StartError";
}

/**
 * Resolves once `probe` says yes; fails as soon as the process exits (with its log's tail). Probes
 * every `periodMs`, as a readiness probe does; no overall deadline (the caller's bounds the run).
 */
export async function waitUntil(what: string, probe: () => Promise<boolean>, process?: ManagedProcess, periodMs = 200): Promise<void> {
  for (;;) {
    if (process && !process.running) throw new StartError(`${what}: ${process.spec.name} exited (${await process.exited}) before it was ready:\n${process.log()}`);
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, periodMs));
  }
}

/** 200 from an HTTP GET (a `/readyz`). */
export async function httpOk(url: string, accept: (body: string) => boolean = () => true): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  const body = await response.text();
  return response.status === 200 && accept(body);
}

/** A process run to completion (initdb, pg_basebackup, migrations); throws with its log on failure. */
export async function runToEnd(registry: ProcessRegistry, spec: ProcessSpec): Promise<void> {
  const p = registry.start(spec);
  const code = await p.exited;
  if (code !== 0) throw new StartError(`${spec.name} failed (exit ${code}):\n${p.log()}`);
}
