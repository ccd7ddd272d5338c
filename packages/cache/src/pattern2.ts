import type { Cache } from "./cache.js";
import { CacheError } from "./errors.js";
import type { CacheMetrics } from "./metrics.js";
import { type Codec, type ReadThroughResult, readThrough } from "./read-through.js";

export interface Pattern2Query {
  /** Tenant (or organisation) the list belongs to, e.g. `redhat/12345`. */
  tenant: string;
  /** Tenant revision the answer is valid at; part of the key, so a write is never hidden. */
  revision: string | number | bigint;
  /** Subject, e.g. `rbac/principal:redhat/alice`. */
  subject: string;
  /** The contingent permission queried, e.g. `patch_system_edit`. */
  relation: string;
}

export interface Pattern2ListCacheOptions {
  timeoutMs?: number;
  /** Old revisions are never read again; the TTL only bounds memory (default 10 minutes). */
  ttlMs?: number;
  metrics?: CacheMetrics;
}

const idsCodec: Codec<string[]> = {
  encode: (ids) => JSON.stringify(ids),
  decode: (text) => {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string")) throw new Error("not a string array");
    return parsed as string[];
  },
};

function requirePart(name: string, value: string): string {
  if (value.length === 0) throw new CacheError("invalid-key", `Pattern-2 cache key part '${name}' must not be empty`);
  // Encoded so that ':' inside a part cannot make two different queries share a key.
  return encodeURIComponent(value);
}

/** Key of one Pattern-2 answer: `p2:<tenant>:<revision>:<relation>:<subject>`, each part URI-encoded. */
export function pattern2Key(query: Pattern2Query): string {
  const revision = String(query.revision);
  if (!/^[0-9A-Za-z._-]+$/.test(revision)) throw new CacheError("invalid-key", `invalid revision '${revision}'`);
  return ["p2", requirePart("tenant", query.tenant), revision, requirePart("relation", query.relation), requirePart("subject", query.subject)].join(":");
}

/**
 * Workspace ids a subject may access through a relation, at one tenant revision (Pattern 2).
 * Revision-keyed entries never need invalidating: a write moves the revision and thus the key.
 */
export class Pattern2ListCache {
  private readonly ttlMs: number;

  constructor(
    private readonly cache: Cache,
    private readonly options: Pattern2ListCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
  }

  getOrLoad(query: Pattern2Query, loader: () => Promise<string[]>): Promise<ReadThroughResult<string[]>> {
    return readThrough(this.cache, pattern2Key(query), loader, {
      name: "pattern2",
      codec: idsCodec,
      ttlMs: this.ttlMs,
      timeoutMs: this.options.timeoutMs,
      metrics: this.options.metrics,
    });
  }
}

/**
 * Whether callers should put a Pattern2ListCache in front of the engine's reverse lookup by
 * default. Measured (apps/workspace-cache bench): a Redis hit is no faster than the in-memory
 * reverse lookup and a miss costs several times more, so the default is off.
 */
export const PATTERN2_LIST_CACHE_DEFAULT_ENABLED = false;
