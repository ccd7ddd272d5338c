import { check as evaluateCheck } from "@gatehouse/evaluator";
import { inSpan, tracingActive } from "@gatehouse/telemetry";
import type { EngineContext } from "./context.js";
import { currentToken, ensureConsistency } from "./consistency.js";
import type { CheckTarget, ConsistencyRequirement } from "./types.js";

/** `options.now`: the evaluation instant (one for all the items of a bulk call). */
export function checkNow(ctx: EngineContext, target: CheckTarget, options: { now: number } = { now: ctx.now() }): boolean {
  // Validation gives subjects without a relation key when they have none (commands/types.ts).
  const subject = target.subject;
  // Tracing off or this call not sampled: the evaluator is called directly (no span attributes or closure allocated).
  if (!tracingActive()) return evaluateCheck(ctx.graph.graph, target.resource, target.permission, subject, options);
  return inSpan("evaluator.check", { "gatehouse.permission": target.permission, "gatehouse.resource_type": target.resource.type }, () =>
    evaluateCheck(ctx.graph.graph, target.resource, target.permission, subject, options),
  );
}

export interface CheckOutcome {
  allowed: boolean;
  token: string;
}

/** Synchronous (no promise) when the graph already satisfies the requirement: the common case. */
export function runCheck(ctx: EngineContext, target: CheckTarget, consistency: ConsistencyRequirement): CheckOutcome | Promise<CheckOutcome> {
  const answer = (): CheckOutcome => ({ allowed: checkNow(ctx, target), token: currentToken(ctx) });
  const pending = ensureConsistency(ctx, consistency);
  return pending ? pending.then(answer) : answer();
}

export type BulkItemOutcome = { readonly allowed: boolean } | { error: unknown };
const ALLOWED: BulkItemOutcome = { allowed: true };
const DENIED: BulkItemOutcome = { allowed: false };

export interface BulkOutcome {
  outcomes: BulkItemOutcome[];
  token: string;
}

/**
 * One outcome per target, in order; a failing item does not fail the others. Synchronous (no
 * promise) when the graph already satisfies the requirement, as runCheck.
 */
export function runCheckBulk(ctx: EngineContext, targets: CheckTarget[], consistency: ConsistencyRequirement): BulkOutcome | Promise<BulkOutcome> {
  const answer = (): BulkOutcome => {
    const options = { now: ctx.now() };
    const outcomes = targets.map((target): BulkItemOutcome => {
      try {
        return checkNow(ctx, target, options) ? ALLOWED : DENIED;
      } catch (error) {
        return { error };
      }
    });
    return { outcomes, token: currentToken(ctx) };
  };
  const pending = ensureConsistency(ctx, consistency);
  return pending ? pending.then(answer) : answer();
}
