import {
  Allowed,
  type CheckBulkRequest,
  type CheckBulkRequestItem,
  type CheckBulkResponse,
  type CheckForUpdateBulkRequest,
  type CheckForUpdateBulkResponse,
  type CheckForUpdateRequest,
  type CheckForUpdateResponse,
  type CheckRequest,
  type CheckResponse,
  type CheckSelfBulkRequest,
  type CheckSelfBulkRequestItem,
  type CheckSelfBulkResponse,
  type CheckSelfRequest,
  type CheckSelfResponse,
  type ResourceReference,
  type Status,
} from "@gatehouse/proto";
import { runCheck, runCheckBulk, type BulkItemOutcome, type CheckOutcome } from "../commands/check.js";
import type { EngineContext } from "../commands/context.js";
import type { CheckTarget, SubjectRef } from "../commands/types.js";
import { EngineError } from "../errors.js";
import type { CallContext } from "../grpc/calls.js";
import { ResponsePair } from "../grpc/encoded-responses.js";
import { toGrpcFailure } from "../grpc/errors.js";
import { bulkItems, consistency, requireRelation, resourceRef, subjectRef } from "../grpc/validation.js";

const allowedOf = (allowed: boolean): Allowed => (allowed ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE);

function target(item: { object?: ResourceReference | undefined; relation: string; subject?: CheckRequest["subject"] }, prefix: string): CheckTarget {
  return {
    resource: resourceRef(item.object, `${prefix}object`),
    permission: requireRelation(item.relation, `${prefix}relation`),
    subject: subjectRef(item.subject, `${prefix}subject`),
  };
}

/** Self RPCs: the subject is the caller, `rbac/principal:<domain>/<user id>` (contract §3.6). */
function selfSubject(context: CallContext, domain: string): SubjectRef {
  if (!context.identity) throw new EngineError("unauthenticated", "self subject missing: the call carries no identity");
  return { type: "rbac/principal", id: `${domain}/${context.identity.userId}` };
}

/** Shared (never mutated) item answers: a bulk response allocates none per item. */
const ALLOWED_ITEM = { allowed: Allowed.ALLOWED_TRUE };
const DENIED_ITEM = { allowed: Allowed.ALLOWED_FALSE };

function pairResponse(outcome: BulkItemOutcome): { item: { allowed: Allowed } } | { error: Status } {
  if ("allowed" in outcome) return { item: outcome.allowed ? ALLOWED_ITEM : DENIED_ITEM };
  const failure = toGrpcFailure(outcome.error);
  return { error: { code: failure.code, message: failure.message, details: [] } };
}

function answer<R>(outcome: CheckOutcome | Promise<CheckOutcome>, responses: ResponsePair<R>): R | Promise<R> {
  if (outcome instanceof Promise) return outcome.then((o) => responses.get(o.allowed, o.token));
  return responses.get(outcome.allowed, outcome.token);
}

const checkResponse = (allowed: boolean, token: string) => ({ allowed: allowedOf(allowed), consistencyToken: { token } });

export function checkHandlers(ctx: EngineContext, domain: string) {
  // Shared, immutable response objects: the server encodes each of them once (memoizeResponseBytes).
  const checks = new ResponsePair<CheckResponse>(checkResponse);
  const updates = new ResponsePair<CheckForUpdateResponse>(checkResponse);
  const selves = new ResponsePair<CheckSelfResponse>(checkResponse);
  return {
    // Synchronous unless the consistency requirement has to wait for the change feed.
    check(request: CheckRequest): CheckResponse | Promise<CheckResponse> {
      const checkTarget = target(request, "");
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: true });
      return answer(runCheck(ctx, checkTarget, requirement), checks);
    },

    checkForUpdate(request: CheckForUpdateRequest): CheckForUpdateResponse | Promise<CheckForUpdateResponse> {
      return answer(runCheck(ctx, target(request, ""), { kind: "fully-consistent" }), updates);
    },

    checkSelf(request: CheckSelfRequest, context: CallContext): CheckSelfResponse | Promise<CheckSelfResponse> {
      const checkTarget: CheckTarget = {
        resource: resourceRef(request.object, "object"),
        permission: requireRelation(request.relation, "relation"),
        subject: selfSubject(context, domain),
      };
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: true });
      return answer(runCheck(ctx, checkTarget, requirement), selves);
    },

    async checkBulk(request: CheckBulkRequest): Promise<CheckBulkResponse> {
      const items = bulkItems(request.items, "items");
      const targets = items.map((item, i) => target(item, `items[${i}].`));
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      const { outcomes, token } = await runCheckBulk(ctx, targets, requirement);
      return {
        pairs: outcomes.map((outcome, i) => ({ request: items[i] as CheckBulkRequestItem, ...pairResponse(outcome) })),
        consistencyToken: { token },
      };
    },

    async checkForUpdateBulk(request: CheckForUpdateBulkRequest): Promise<CheckForUpdateBulkResponse> {
      const items = bulkItems(request.items, "items");
      const targets = items.map((item, i) => target(item, `items[${i}].`));
      const { outcomes, token } = await runCheckBulk(ctx, targets, { kind: "fully-consistent" });
      return {
        pairs: outcomes.map((outcome, i) => ({ request: items[i] as CheckBulkRequestItem, ...pairResponse(outcome) })),
        consistencyToken: { token },
      };
    },

    async checkSelfBulk(request: CheckSelfBulkRequest, context: CallContext): Promise<CheckSelfBulkResponse> {
      const items = bulkItems(request.items, "items");
      const targets = items.map(
        (item, i): CheckTarget => ({
          resource: resourceRef(item.object, `items[${i}].object`),
          permission: requireRelation(item.relation, `items[${i}].relation`),
          subject: selfSubject(context, domain),
        }),
      );
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      const { outcomes, token } = await runCheckBulk(ctx, targets, requirement);
      return {
        pairs: outcomes.map((outcome, i) => ({ request: items[i] as CheckSelfBulkRequestItem, ...pairResponse(outcome) })),
        consistencyToken: { token },
      };
    },
  };
}
