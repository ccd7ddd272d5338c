// Tenant-sharded engines, simulated (docs/SCALING.md, "Engines sharded by tenant"): per-tenant sizes from
// the scale data set (bench/scale-data.ts, counted relationship by relationship) times the measured
// bytes per relationship, placed on N shards three ways, and what adding a shard moves:
// - ring hash on the tenant header (Envoy's `ring_hash` / gRPC xDS `ring_hash_experimental`: every
//   shard hashed onto a ring at ceil(RING / N) points, a tenant goes to the next point clockwise);
// - maglev (Envoy's `maglev`, a lookup table of 65,537 entries filled in turns by each shard);
// - a placement table: the largest tenants pinned (greedy, largest first onto the least loaded
//   shard), every other tenant by ring hash (only the pins are routes of their own).
// The hash is a 64-bit mix of our own, not Envoy's xxHash: the shape of the spread is what is
// simulated, not which shard a given tenant lands on.
// Run: pnpm --filter @gatehouse/authz-engine bench:shards   (SCALE_RELATIONSHIPS, default 100,000,000;
// SHARD_BYTES_PER_RELATIONSHIP, default 56; SHARD_COUNTS, default 2,4,8,16; SHARD_PINS, default 8)
import { compileRoleModel } from "@gatehouse/role-config";
import { scaleRelationships } from "./scale-data.js";

const SIZE = Number(process.env["SCALE_RELATIONSHIPS"] ?? 100_000_000);
const BYTES = Number(process.env["SHARD_BYTES_PER_RELATIONSHIP"] ?? 56);
const COUNTS = (process.env["SHARD_COUNTS"] ?? "2,4,8,16").split(",").map(Number);
const PINS = Number(process.env["SHARD_PINS"] ?? 8);
const RING = 1024;
const MAGLEV = 65_537;

// Per-tenant relationship counts: tenant ids are the prefix `scale-t<rank>` of every id they own.
const model = compileRoleModel("stage");
const data = scaleRelationships({ relationships: SIZE, model });
const counts = new Map<string, number>();
let shared = 0;
for (const r of data.relationships) {
  const m = /^scale-t\d+/.exec(r.resourceId);
  if (!m) {
    shared++;
    continue;
  }
  counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
}
const tenants = [...counts].map(([id, n]) => ({ id, bytes: n * BYTES, relationships: n })).sort((a, b) => b.relationships - a.relationships);
const total = tenants.reduce((s, t) => s + t.bytes, 0);

/** 64-bit hash of a string as two 32-bit halves mixed into a double in [0, 2^53). */
function hash(s: string, seed = 0): number {
  let h1 = 0x9e3779b9 ^ seed;
  let h2 = 0x85ebca6b ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h1 = Math.imul(h1 ^ (h1 >>> 13), 0xc2b2ae35);
  h2 = Math.imul(h2 ^ (h2 >>> 15), 0x27d4eb2d);
  h2 ^= h2 >>> 16;
  return ((h1 >>> 0) & 0x1fffff) * 2 ** 32 + (h2 >>> 0);
}

type Placement = (tenant: string) => number;

function ringHash(shards: number): Placement {
  const per = Math.ceil(RING / shards);
  const points: Array<[number, number]> = [];
  for (let s = 0; s < shards; s++) for (let i = 0; i < per; i++) points.push([hash(`engine-shard-${s}_${i}`), s]);
  points.sort((a, b) => a[0] - b[0]);
  const keys = points.map((p) => p[0]);
  return (tenant) => {
    const h = hash(tenant, 7);
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return points[lo === keys.length ? 0 : lo]![1];
  };
}

function maglev(shards: number): Placement {
  const table = new Int32Array(MAGLEV).fill(-1);
  const offset = Array.from({ length: shards }, (_, s) => hash(`engine-shard-${s}`, 1) % MAGLEV);
  const skip = Array.from({ length: shards }, (_, s) => (hash(`engine-shard-${s}`, 2) % (MAGLEV - 1)) + 1);
  const next = new Array<number>(shards).fill(0);
  for (let filled = 0; filled < MAGLEV; ) {
    for (let s = 0; s < shards && filled < MAGLEV; s++) {
      let c = (offset[s]! + next[s]! * skip[s]!) % MAGLEV;
      while (table[c] !== -1) c = (offset[s]! + ++next[s]! * skip[s]!) % MAGLEV;
      table[c] = s;
      next[s]!++;
      filled++;
    }
  }
  return (tenant) => table[hash(tenant, 7) % MAGLEV]!;
}

/** The largest tenants pinned greedily (largest first, least loaded shard), the rest by ring hash. */
function pinned(shards: number, previous?: Map<string, number>): { place: Placement; pins: Map<string, number> } {
  const ring = ringHash(shards);
  const load = new Array<number>(shards).fill(0);
  const pins = new Map<string, number>();
  const big = tenants.slice(0, PINS);
  for (const t of tenants.slice(PINS)) load[ring(t.id)]! += t.bytes;
  for (const t of big) {
    // A tenant pinned before stays where it is unless that shard is the most loaded.
    const before = previous?.get(t.id);
    let s = load.indexOf(Math.min(...load));
    if (before !== undefined && before < shards && load[before]! + t.bytes <= Math.max(...load) + t.bytes / 2) s = before;
    pins.set(t.id, s);
    load[s]! += t.bytes;
  }
  return { place: (tenant) => pins.get(tenant) ?? ring(tenant), pins };
}

function spread(place: Placement, shards: number) {
  const load = new Array<number>(shards).fill(0);
  for (const t of tenants) load[place(t.id)]! += t.bytes;
  const mean = total / shards;
  return { load, max: Math.max(...load), ratio: Math.max(...load) / mean };
}

function moved(a: Placement, b: Placement): { bytes: number; tenants: number } {
  let bytes = 0;
  let n = 0;
  for (const t of tenants) {
    if (a(t.id) !== b(t.id)) {
      bytes += t.bytes;
      n++;
    }
  }
  return { bytes, tenants: n };
}

const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(
  `${SIZE.toLocaleString("en")} relationships: ${tenants.length.toLocaleString("en")} tenants (+${shared} shared role relationships, on every shard), ${BYTES} B per relationship = ${gib(total)}; ` +
    `largest tenant ${tenants[0]!.relationships.toLocaleString("en")} relationships (${gib(tenants[0]!.bytes)}, ${pct(tenants[0]!.bytes / total)}), ` +
    `10th ${tenants[9]!.relationships.toLocaleString("en")}, 100th ${tenants[99]?.relationships.toLocaleString("en")}, median ${tenants[tenants.length >> 1]!.relationships.toLocaleString("en")}\n`,
);
console.log(
  `| shards | mean per shard | best possible (max of mean, largest tenant) | ring hash: largest shard (× mean) | maglev: largest (× mean) | ${PINS} largest pinned + ring hash: largest (× mean) | adding a shard moves: ring hash | maglev | pinned + ring hash |`,
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const n of COUNTS) {
  const r = spread(ringHash(n), n);
  const m = spread(maglev(n), n);
  const p0 = pinned(n);
  const p = spread(p0.place, n);
  const r2 = moved(ringHash(n), ringHash(n + 1));
  const m2 = moved(maglev(n), maglev(n + 1));
  const p2 = moved(p0.place, pinned(n + 1, p0.pins).place);
  const cell = (x: { bytes: number; tenants: number }) => `${pct(x.bytes / total)} of bytes (${x.tenants.toLocaleString("en")} tenants)`;
  console.log(
    `| ${n} → ${n + 1} | ${gib(total / n)} | ${gib(Math.max(total / n, tenants[0]!.bytes))} (${(Math.max(total / n, tenants[0]!.bytes) / (total / n)).toFixed(2)}) | ${gib(r.max)} (${r.ratio.toFixed(2)}) | ${gib(m.max)} (${m.ratio.toFixed(2)}) | ${gib(p.max)} (${p.ratio.toFixed(2)}) | ${cell(r2)} | ${cell(m2)} | ${cell(p2)} |`,
  );
}
console.log(`\n(ideal move when adding a shard to N: 1/(N+1) of the bytes; ring of ${RING} points, maglev table of ${MAGLEV.toLocaleString("en")})`);
