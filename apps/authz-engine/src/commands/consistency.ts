import { EngineError } from "../errors.js";
import type { EngineContext } from "./context.js";
import type { ConsistencyRequirement } from "./types.js";

/** Decodes a client token; a malformed one is the caller's error, not ours. */
export function tokenRevision(ctx: EngineContext, token: string): number {
  try {
    return ctx.source.decodeToken(token);
  } catch (cause) {
    throw new EngineError("invalid-consistency-token", "The consistency token is malformed.", undefined, { cause });
  }
}

/**
 * Resolves the requirement once, before evaluation: afterwards the in-memory graph reflects at
 * least the required revision, and every answer is computed synchronously against it. Returns
 * nothing (no promise, no microtask) when the graph already satisfies the requirement.
 */
export function ensureConsistency(ctx: EngineContext, requirement: ConsistencyRequirement): Promise<void> | void {
  if (!ctx.graph.ready) {
    // A recovering graph may be arbitrarily stale: refused (retryable) like one still loading.
    throw new EngineError("not-ready", ctx.graph.recovering ? "The relationship graph is being reloaded." : "The relationship graph is not loaded yet.");
  }
  switch (requirement.kind) {
    case "minimize-latency":
      return;
    case "at-least-as-fresh": {
      const revision = tokenRevision(ctx, requirement.token);
      if (revision > ctx.graph.appliedRevision) return ctx.graph.waitFor(revision, ctx.freshnessTimeoutMs);
      return;
    }
    case "fully-consistent":
      return ctx.source.headRevision().then((head) => {
        if (head > ctx.graph.appliedRevision) return ctx.graph.waitFor(head, ctx.freshnessTimeoutMs);
        return undefined;
      });
  }
}

const lastEncoded = new WeakMap<EngineContext, { revision: number; token: string }>();

/** The token of the revision the graph reflects right now (memoised: it changes only on commits). */
export function currentToken(ctx: EngineContext): string {
  const revision = ctx.graph.appliedRevision;
  let entry = lastEncoded.get(ctx);
  if (entry?.revision !== revision) {
    entry = { revision, token: ctx.source.encodeToken(revision) };
    lastEncoded.set(ctx, entry);
  }
  return entry.token;
}
