import { check as evaluateCheck } from "@gatehouse/evaluator";
import { inSpan, tracingActive } from "@gatehouse/telemetry";
import type { EngineContext } from "./context.js";
import { currentToken, ensureConsistency } from "./consistency.js";
import type { CheckTarget, ConsistencyRequirement } from "./types.js";

export function checkNow(ctx: EngineContext, target: CheckTarget): boolean {
  const subject = target.subject.relation ? { type: target.subject.type, id: target.subject.id, relation: target.subject.relation } : { type: target.subject.type, id: target.subject.id };
  // Tracing off or this call not sampled: the evaluator is called directly (no span attributes or closure allocated).
  const options = { now: ctx.now() };
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

export type BulkItemOutcome = { allowed: boolean } | { error: unknown };

/** One outcome per target, in order; a failing item does not fail the others. */
export async function runCheckBulk(ctx: EngineContext, targets: CheckTarget[], consistency: ConsistencyRequirement): Promise<{ outcomes: BulkItemOutcome[]; token: string }> {
  await ensureConsistency(ctx, consistency);
  const outcomes = targets.map((target): BulkItemOutcome => {
    try {
      return { allowed: checkNow(ctx, target) };
    } catch (error) {
      return { error };
    }
  });
  return { outcomes, token: currentToken(ctx) };
}
