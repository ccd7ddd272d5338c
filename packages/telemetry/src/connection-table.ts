// Who gives way when a port's connection table is full. Refusing every newcomer at the cap (what
// `server.maxConnections` does) lets one source that opens connections and holds them (half-sent
// headers, idle keep-alives) keep everybody else out. Here a newcomer from a source holding fewer
// connections than the largest holder is always let in, and the largest holder's oldest connection
// without a request in progress gives way (its oldest at all if every one is busy); a newcomer from
// the largest holder takes the place of its own oldest idle connection, or is refused. One source
// can therefore never hold more than its fair share against anyone else who wants in. Behind a proxy
// (one source for everyone) this is "the oldest idle connection gives way". Pure bookkeeping: the
// caller closes what it is told to.
import { isIPv4 } from "node:net";

export interface TableEntry {
  /** The source it counts against (`peerOf` of the remote address). */
  readonly peer: string;
  /** A request is in progress on it: it gives way only when a source has nothing idle left. */
  busy(): boolean;
}

export type Admission<E> = { admitted: true; evicted?: E } | { admitted: false };

export class ConnectionTable<E extends TableEntry> {
  /** Per source, its connections oldest first (a Set keeps insertion order). */
  private readonly byPeer = new Map<string, Set<E>>();
  /** Sources by how many connections they hold, so the largest holder is found at once. */
  private readonly peersByCount = new Map<number, Set<string>>();
  private largest = 0;
  private count = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.count;
  }

  /** Connections held by a source (for tests and metrics). */
  heldBy(peer: string): number {
    return this.byPeer.get(peer)?.size ?? 0;
  }

  /** Adds `entry` if there is room or someone gives way; the caller closes `evicted`, or `entry` if refused. */
  admit(entry: E): Admission<E> {
    if (this.count < this.max) {
      this.add(entry);
      return { admitted: true };
    }
    const own = this.heldBy(entry.peer);
    let evicted: E | undefined;
    if (own < this.largest) {
      const largestPeer = this.peersByCount.get(this.largest)?.values().next().value;
      const held = largestPeer === undefined ? undefined : this.byPeer.get(largestPeer);
      evicted = held && (oldestIdle(held) ?? held.values().next().value);
    } else {
      const held = this.byPeer.get(entry.peer);
      evicted = held && oldestIdle(held);
    }
    if (evicted === undefined) return { admitted: false };
    this.remove(evicted);
    this.add(entry);
    return { admitted: true, evicted };
  }

  /** Forgets `entry` (it closed); a no-op for one not in the table. */
  remove(entry: E): void {
    const held = this.byPeer.get(entry.peer);
    if (!held?.delete(entry)) return;
    this.count--;
    this.move(entry.peer, held.size + 1, held.size);
    if (held.size === 0) this.byPeer.delete(entry.peer);
  }

  private add(entry: E): void {
    let held = this.byPeer.get(entry.peer);
    if (!held) this.byPeer.set(entry.peer, (held = new Set()));
    held.add(entry);
    this.count++;
    this.move(entry.peer, held.size - 1, held.size);
  }

  /** Counts change by one at a time, so the largest count moves by at most one too. */
  private move(peer: string, from: number, to: number): void {
    const before = this.peersByCount.get(from);
    if (before) {
      before.delete(peer);
      if (before.size === 0) this.peersByCount.delete(from);
    }
    if (to > 0) {
      let after = this.peersByCount.get(to);
      if (!after) this.peersByCount.set(to, (after = new Set()));
      after.add(peer);
    }
    if (to > this.largest) this.largest = to;
    else if (from === this.largest && !this.peersByCount.has(from)) this.largest = to;
  }
}

function oldestIdle<E extends TableEntry>(held: Set<E>): E | undefined {
  for (const entry of held) if (!entry.busy()) return entry;
  return undefined;
}

/**
 * The source a remote address counts against: the IPv4 address (an IPv4-mapped IPv6 one
 * included), or an IPv6 address's /64 network, which one host commonly holds whole.
 */
export function peerOf(address: string | undefined): string {
  if (address === undefined || address === "") return "";
  const mapped = address.toLowerCase().startsWith("::ffff:") ? address.slice(7) : address;
  if (isIPv4(mapped)) return mapped;
  const zoneless = address.split("%")[0]!.toLowerCase();
  const [head = "", tail] = zoneless.split("::");
  const groups = head === "" ? [] : head.split(":");
  if (groups.length < 4 && tail !== undefined) {
    const tailGroups = tail === "" ? [] : tail.split(":");
    const missing = 8 - groups.length - tailGroups.length;
    groups.push(...Array.from({ length: Math.max(0, missing) }, () => "0"), ...tailGroups);
  }
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
