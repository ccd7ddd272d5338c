import type { StreamedListObjectsRequest, StreamedListObjectsResponse, StreamedListSubjectsRequest, StreamedListSubjectsResponse } from "@gatehouse/proto";
import type { EngineContext } from "../commands/context.js";
import { cursorAt, listObjects, listSubjects } from "../commands/list.js";
import type { CallContext, StreamWriter } from "../grpc/calls.js";
import { objectItemEncoder } from "../grpc/list-encoding.js";
import { consistency, pagination, representationType, requireRelation, resourceRef, subjectRef } from "../grpc/validation.js";

export function listHandlers(ctx: EngineContext) {
  return {
    async streamedListObjects(
      request: StreamedListObjectsRequest,
      context: CallContext,
      // Items go out pre-encoded (the service definition passes Buffers through).
      write: StreamWriter<StreamedListObjectsResponse | Buffer>,
    ): Promise<void> {
      const objectType = representationType(request.objectType, "object_type");
      const permission = requireRelation(request.relation, "relation");
      const subject = subjectRef(request.subject, "subject");
      const page = pagination(request.pagination, "pagination");
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      const result = await listObjects(ctx, { objectType: objectType.definition, permission, subject, page, consistency: requirement });
      const encode = objectItemEncoder(objectType.resourceType, objectType.reporterType, result.token);
      for (let i = result.start; i < result.end; i++) {
        if (context.cancelled()) return;
        const pending = write(encode(result.ids.at(i), cursorAt(result, i)));
        if (pending) await pending;
      }
    },

    async streamedListSubjects(request: StreamedListSubjectsRequest, context: CallContext, write: StreamWriter<StreamedListSubjectsResponse>): Promise<void> {
      const resource = resourceRef(request.resource, "resource");
      const permission = requireRelation(request.relation, "relation");
      const subjectType = representationType(request.subjectType, "subject_type");
      const page = pagination(request.pagination, "pagination");
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      const subjectRelation = request.subjectRelation?.trim() ? requireRelation(request.subjectRelation, "subject_relation") : undefined;
      const result = await listSubjects(ctx, {
        resource,
        permission,
        subjectType: subjectType.definition,
        ...(subjectRelation !== undefined ? { subjectRelation } : {}),
        page,
        consistency: requirement,
      });
      const consistencyToken = { token: result.token };
      const reporter = { type: subjectType.reporterType };
      for (let i = result.start; i < result.end; i++) {
        if (context.cancelled()) return;
        const pending = write({
          subject: {
            resource: { resourceType: subjectType.resourceType, resourceId: result.ids.at(i), reporter },
            ...(subjectRelation !== undefined ? { relation: subjectRelation } : {}),
          },
          pagination: { continuationToken: cursorAt(result, i) },
          consistencyToken,
        });
        if (pending) await pending;
      }
    },
  };
}
