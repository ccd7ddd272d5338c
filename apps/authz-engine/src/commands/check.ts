import { check as evaluateCheck } from "@gatehouse/evaluator";
import type { EngineContext } from "./context.js";
import { currentToken, ensureConsistency } from "./consistency.js";
import type { CheckTarget, ConsistencyRequirement } from "./types.js";

export function checkNow(ctx: EngineContext, target: CheckTarget): boolean {
  const subject = target.subject.relation
    ? { type: target.subject.type, id: target.subject.id, relation: target.subject.relation }
    : { type: target.subject.type, id: target.subject.id };
  return evaluateCheck(ctx.graph.graph, target.resource, target.permission, subject);
}

export interface CheckOutcome {
  allowed: boolean;
  token: string;
}

export async function runCheck(ctx: EngineContext, target: CheckTarget, consistency: ConsistencyRequirement): Promise<CheckOutcome> {
  await ensureConsistency(ctx, consistency);
  const allowed = checkNow(ctx, target);
  return { allowed, token: currentToken(ctx) };
}

export type BulkItemOutcome = { allowed: boolean } | { error: unknown };

/** One outcome per target, in order; a failing item does not fail the others. */
export async function runCheckBulk(
  ctx: EngineContext,
  targets: CheckTarget[],
  consistency: ConsistencyRequirement,
): Promise<{ outcomes: BulkItemOutcome[]; token: string }> {
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
