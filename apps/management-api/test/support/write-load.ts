// Write load against a running management API, and the audit after it: which acknowledged writes
// are missing (lost) and which refused writes were carried out anyway (ghosts). Shared by the
// database-fault test and the fault-under-load run (bench/database-fault.bench.ts).
import { encodeIdentityHeader } from "@gatehouse/auth";

export interface WriteOutcome {
  name: string;
  /** HTTP status, or 0 when no answer came (connection refused or reset). */
  status: number;
  contentType: string | null;
  /** Id of the created workspace (201 only). */
  id?: string;
  /** performance.now() when the answer arrived. */
  at: number;
}

export interface LoadAudit {
  acknowledged: number;
  refused: number;
  lost: string[];
  ghosts: string[];
}

const V2 = "/api/rbac/v2";

export function identityFor(org: string): string {
  return encodeIdentityHeader({ orgId: org, userId: `${org}-admin`, username: `${org}-admin`, isOrgAdmin: true });
}

/**
 * `writers` loops, each creating workspaces one after another under the org's default workspace.
 * Progress is observed by count (`untilAcknowledged`), never by time.
 */
export class WriteLoad {
  readonly outcomes: WriteOutcome[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private waiters: { count: number; after: number; resolve: () => void }[] = [];
  private readonly identity: string;

  constructor(
    private readonly baseUrl: string,
    org: string,
    private readonly writers: number,
  ) {
    this.identity = identityFor(org);
  }

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.writers }, (_, w) => this.loop(w));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  acknowledged(): WriteOutcome[] {
    return this.outcomes.filter((o) => o.status === 201);
  }

  /** Resolves once `count` writes answered after `afterIndex` (an index into `outcomes`) were acknowledged. */
  untilAcknowledged(count: number, afterIndex = this.outcomes.length): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ count, after: afterIndex, resolve });
      this.settleWaiters();
    });
  }

  private settleWaiters(): void {
    this.waiters = this.waiters.filter((w) => {
      const done = this.outcomes.slice(w.after).filter((o) => o.status === 201).length >= w.count;
      if (done) w.resolve();
      return !done;
    });
  }

  private async loop(writer: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      const name = `load-${writer}-${i}`;
      const outcome = await this.create(name);
      this.outcomes.push(outcome);
      this.settleWaiters();
      // A refused write is retried under another name after a short pause, as a client would.
      if (outcome.status !== 201) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async create(name: string): Promise<WriteOutcome> {
    try {
      const response = await fetch(`${this.baseUrl}${V2}/workspaces/`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-rh-identity": this.identity },
        body: JSON.stringify({ name }),
      });
      const text = await response.text();
      const id = response.status === 201 ? (JSON.parse(text) as { id: string }).id : undefined;
      return { name, status: response.status, contentType: response.headers.get("content-type"), ...(id ? { id } : {}), at: performance.now() };
    } catch {
      return { name, status: 0, contentType: null, at: performance.now() };
    }
  }

  /** Reads every workspace of the org and compares it with what the writers were told. */
  async audit(): Promise<LoadAudit> {
    const response = await fetch(`${this.baseUrl}${V2}/workspaces/?limit=-1`, { headers: { "x-rh-identity": this.identity } });
    if (response.status !== 200) throw new Error(`listing the workspaces answered ${response.status}`);
    const body = (await response.json()) as { data: { id: string; name: string }[] };
    const stored = new Map(body.data.map((w) => [w.name, w.id]));
    const acknowledged = this.acknowledged();
    const lost = acknowledged.filter((o) => stored.get(o.name) !== o.id).map((o) => o.name);
    const refused = this.outcomes.filter((o) => o.status !== 201);
    const ghosts = refused.filter((o) => stored.has(o.name)).map((o) => o.name);
    return { acknowledged: acknowledged.length, refused: refused.length, lost, ghosts };
  }
}
