// SpiceDB in a child process with a deadline per call: a call that overruns it kills the process
// (SpiceDB's Check cannot be cancelled in-process) and fails with "deadline exceeded"; the next call
// starts a fresh process with the same schema and relationships. Used by the long differential run.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ObjectRef, Relationship, SubjectRef } from "../../src/index.js";

const CHILD = fileURLToPath(new URL("./spicedb-child.ts", import.meta.url));

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class SpiceDbProcess {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private loaded: { schema: string; relationships: Relationship[] } | undefined;
  /** Processes killed because a call overran its deadline. */
  restarts = 0;
  /** A call overran its deadline since the last load. */
  private stalled = false;

  constructor(public deadlineMs = 5000) {}

  /** Loads a schema and relationships (replacing the previous ones); rejects with SpiceDB's message if it refuses the schema. */
  async load(schema: string, relationships: Relationship[]): Promise<void> {
    this.loaded = undefined;
    // After a stall, the old instance may still be busy (its disposal waits for it): start afresh.
    if (this.stalled) this.kill();
    this.stalled = false;
    try {
      await this.call("start", [schema, relationships], this.deadlineMs * 4);
    } catch (error) {
      if (!/deadline exceeded/.test((error as Error).message)) throw error;
      await this.call("start", [schema, relationships], this.deadlineMs * 4);
    }
    this.loaded = { schema, relationships };
  }

  check(resource: ObjectRef, permission: string, subject: SubjectRef): Promise<boolean> {
    return this.query("check", [resource, permission, subject]) as Promise<boolean>;
  }

  lookupResources(resourceType: string, permission: string, subject: SubjectRef): Promise<string[]> {
    return this.query("lookupResources", [resourceType, permission, subject]) as Promise<string[]>;
  }

  lookupSubjects(resource: ObjectRef, permission: string, subjectType: string, subjectRelation?: string): Promise<{ ids: string[]; wildcard: boolean; excluded: string[] }> {
    return this.query("lookupSubjects", [resource, permission, subjectType, subjectRelation]) as Promise<{ ids: string[]; wildcard: boolean; excluded: string[] }>;
  }

  /** A call that blocks the child for `ms` (tests of the deadline and restart). */
  stall(ms: number): Promise<unknown> {
    return this.query("stall", [ms]);
  }

  close(): void {
    this.kill();
  }

  /** A query; after a restart, the loaded data is written to the fresh process first. */
  private async query(op: string, args: unknown[]): Promise<unknown> {
    if (!this.child && this.loaded) await this.call("start", [this.loaded.schema, this.loaded.relationships], this.deadlineMs * 4);
    return this.call(op, args, this.deadlineMs);
  }

  private call(op: string, args: unknown[], deadlineMs: number): Promise<unknown> {
    const child = this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.restarts++;
        this.stalled = true;
        this.kill();
        reject(new Error(`deadline exceeded: ${op} took over ${deadlineMs} ms`));
      }, deadlineMs);
      this.pending.set(id, { resolve, reject, timer });
      child.send({ id, op, args });
    });
  }

  private spawn(): ChildProcess {
    if (this.child) return this.child;
    // The child is TypeScript: tsx loads it, whether the parent runs under tsx or vitest.
    const child = fork(CHILD, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.on("message", (m: { id: number; ok: boolean; value?: unknown; message?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.value);
      else {
        // A lookup past SpiceDB's own deadline may leave work running in the instance.
        if (/deadline|cancel/i.test(m.message ?? "")) this.stalled = true;
        p.reject(new Error(m.message));
      }
    });
    child.on("exit", () => {
      if (this.child !== child) return;
      this.child = undefined;
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new Error("SpiceDB process exited"));
        this.pending.delete(id);
      }
    });
    this.child = child;
    return child;
  }

  private kill(): void {
    const child = this.child;
    this.child = undefined;
    child?.kill("SIGKILL");
  }
}
