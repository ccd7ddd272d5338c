/**
 * Calls whose request (message and end of stream) must arrive within `timeoutMs`, watched with one
 * timer for all of them instead of one per call. A request almost always arrives with its headers,
 * so the watched set holds only the few calls still arriving; the timer is set for the earliest
 * deadline among them and only while there is one.
 */
export interface ArrivalWatch {
  /** The request arrived, or the call ended first: stop watching. */
  settle(): void;
}

interface Watched extends ArrivalWatch {
  readonly due: number;
  readonly onLate: () => void;
}

export class ArrivalDeadlines {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly timeoutMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** Watches a call from now; `onLate` runs once if it is not settled within the timeout. */
  watch(onLate: () => void): ArrivalWatch {
    const watched = this.watched;
    const entry: Watched = {
      due: this.now() + this.timeoutMs,
      onLate,
      settle() {
        watched.delete(entry);
      },
    };
    watched.add(entry);
    // Every later call is due later: a timer already set covers it.
    if (this.timer === null) this.arm(entry.due);
    return entry;
  }

  /** Calls watched now (for tests and metrics). */
  get size(): number {
    return this.watched.size;
  }

  /** Stops the timer (server shutdown); watched calls are left to the shutdown. */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.watched.clear();
  }

  private arm(due: number): void {
    this.timer = setTimeout(() => this.sweep(), Math.max(0, Math.ceil(due - this.now())));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = null;
    const now = this.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.watched) {
      if (entry.due <= now) {
        this.watched.delete(entry);
        entry.onLate();
      } else if (entry.due < next) {
        next = entry.due;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}
