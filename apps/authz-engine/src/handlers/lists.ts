import type {
  StreamedListObjectsRequest,
  StreamedListObjectsResponse,
  StreamedListSubjectsRequest,
  StreamedListSubjectsResponse,
} from "@gatehouse/proto";
import type { EngineContext } from "../commands/context.js";
import { listObjects, listSubjects } from "../commands/list.js";
import type { CallContext, StreamWriter } from "../grpc/calls.js";
import { consistency, pagination, representationType, requireString, resourceRef, subjectRef } from "../grpc/validation.js";

export function listHandlers(ctx: EngineContext) {
  return {
    async streamedListObjects(
      request: StreamedListObjectsRequest,
      context: CallContext,
      write: StreamWriter<StreamedListObjectsResponse>,
    ): Promise<void> {
      const objectType = representationType(request.objectType, "object_type");
      const permission = requireString(request.relation, "relation");
      const subject = subjectRef(request.subject, "subject");
      const page = pagination(request.pagination, "pagination");
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      const result = await listObjects(ctx, { objectType: objectType.definition, permission, subject, page, consistency: requirement });
      const consistencyToken = { token: result.token };
      const reporter = { type: objectType.reporterType };
      for (const item of result.items) {
        if (context.cancelled()) return;
        await write({
          object: { resourceType: objectType.resourceType, resourceId: item.id, reporter },
          pagination: { continuationToken: item.cursor },
          consistencyToken,
        });
      }
    },

    async streamedListSubjects(
      request: StreamedListSubjectsRequest,
      context: CallContext,
      write: StreamWriter<StreamedListSubjectsResponse>,
    ): Promise<void> {
      const resource = resourceRef(request.resource, "resource");
      const permission = requireString(request.relation, "relation");
      const subjectType = representationType(request.subjectType, "subject_type");
      const page = pagination(request.pagination, "pagination");
      const requirement = consistency(request.consistency, "consistency", { allowAcknowledged: false });
      const subjectRelation = request.subjectRelation ? request.subjectRelation : undefined;
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
      for (const item of result.items) {
        if (context.cancelled()) return;
        await write({
          subject: {
            resource: { resourceType: subjectType.resourceType, resourceId: item.id, reporter },
            ...(subjectRelation !== undefined ? { relation: subjectRelation } : {}),
          },
          pagination: { continuationToken: item.cursor },
          consistencyToken,
        });
      }
    },
  };
}
