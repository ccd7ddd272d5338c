import {
  Allowed,
  type CheckBulkRequest,
  type CheckBulkResponse,
  type CheckForUpdateBulkRequest,
  type CheckForUpdateBulkResponse,
  type CheckForUpdateRequest,
  type CheckForUpdateResponse,
  type CheckRequest,
  type CheckResponse,
  type CheckSelfBulkRequest,
  type CheckSelfBulkResponse,
  type CheckSelfRequest,
  type CheckSelfResponse,
  type ResourceReference,
  type Status,
} from "@gatehouse/proto";
import { type BulkItemOutcome, type BulkOutcome, type CheckOutcome, runCheck, runCheckBulk } from "../commands/check.js";
import type { EngineContext } from "../commands/context.js";
import type { CheckTarget, SubjectRef } from "../commands/types.js";
import { EngineError } from "../errors.js";
import type { CallContext } from "../grpc/calls.js";
import { ResponsePair } from "../grpc/encoded-responses.js";
import { toGrpcFailure } from "../grpc/errors.js";
import { bulkItems, consistency, type RefFields, refFields, requireRelation, resourceRef, type SubjectFields, subjectFields, subjectRef } from "../grpc/validation.js";

const allowedOf = (allowed: boolean): Allowed => (allowed ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE);

/** The field names of a check's parts, at the top level or in a bulk call's item i (made once each). */
interface TargetFields {
  object: RefFields;
  relation: string;
  subject: SubjectFields;
}
const fieldsOf = (prefix: string): TargetFields => ({ object: refFields(`${prefix}object`), relation: `${prefix}relation`, subject: subjectFields(`${prefix}subject`) });
const TOP_LEVEL: TargetFields = fieldsOf("");
const itemFields: TargetFields[] = [];
const fieldsOfItem = (i: number): TargetFields => (itemFields[i] ??= fieldsOf(`items[${i}].`));

function target(item: { object?: ResourceReference | undefined; relation: string; subject?: CheckRequest["subject"] }, fields: TargetFields): CheckTarget {
  return {
    resource: resourceRef(item.object, fields.object),
    permission: requireRelation(item.relation, fields.relation),
    subject: subjectRef(item.subject, fields.subject),
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

/** A bulk answer's pair for one item (no spread: one object per pair). */
function pairOf<Q>(request: Q, outcome: BulkItemOutcome): { request: Q; item: { allowed: Allowed } } | { request: Q; error: Status } {
  if ("allowed" in outcome) return { request, item: outcome.allowed ? ALLOWED_ITEM : DENIED_ITEM };
  const failure = toGrpcFailure(outcome.error);
  return { request, error: { code: failure.code, message: failure.message, details: [] } };
}

function answer<R>(outcome: CheckOutcome | Promise<CheckOutcome>, responses: ResponsePair<R>): R | Promise<R> {
  if (outcome instanceof Promise) return outcome.then((o) => responses.get(o.allowed, o.token));
  return responses.get(outcome.allowed, outcome.token);
}

/** A bulk response: each item's request with its outcome, and the token (once the outcomes are known). */
function bulkResponse<Q>(items: Q[], result: BulkOutcome | Promise<BulkOutcome>) {
  const respond = ({ outcomes, token }: BulkOutcome) => ({ pairs: outcomes.map((outcome, i) => pairOf(items[i] as Q, outcome)), consistencyToken: { token } });
  return result instanceof Promise ? result.then(respond) : respond(result);
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
      const checkTarget = target(request, TOP_LEVEL);
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: true });
      return answer(runCheck(ctx, checkTarget, requirement), checks);
    },

    checkForUpdate(request: CheckForUpdateRequest): CheckForUpdateResponse | Promise<CheckForUpdateResponse> {
      return answer(runCheck(ctx, target(request, TOP_LEVEL), { kind: "fully-consistent" }), updates);
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

    checkBulk(request: CheckBulkRequest): CheckBulkResponse | Promise<CheckBulkResponse> {
      const items = bulkItems(request.items, "items");
      const targets = items.map((item, i) => target(item, fieldsOfItem(i)));
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      return bulkResponse(items, runCheckBulk(ctx, targets, requirement));
    },

    checkForUpdateBulk(request: CheckForUpdateBulkRequest): CheckForUpdateBulkResponse | Promise<CheckForUpdateBulkResponse> {
      const items = bulkItems(request.items, "items");
      const targets = items.map((item, i) => target(item, fieldsOfItem(i)));
      return bulkResponse(items, runCheckBulk(ctx, targets, { kind: "fully-consistent" }));
    },

    checkSelfBulk(request: CheckSelfBulkRequest, context: CallContext): CheckSelfBulkResponse | Promise<CheckSelfBulkResponse> {
      const items = bulkItems(request.items, "items");
      const targets = items.map(
        (item, i): CheckTarget => ({
          resource: resourceRef(item.object, fieldsOfItem(i).object),
          permission: requireRelation(item.relation, fieldsOfItem(i).relation),
          subject: selfSubject(context, domain),
        }),
      );
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      return bulkResponse(items, runCheckBulk(ctx, targets, requirement));
    },
  };
}
