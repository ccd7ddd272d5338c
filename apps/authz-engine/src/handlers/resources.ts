import { WriteVisibility, type DeleteResourceRequest, type DeleteResourceResponse, type ReportResourceRequest, type ReportResourceResponse } from "@gatehouse/proto";
import type { EngineContext } from "../commands/context.js";
import { deleteResource, reportResource, workspaceIdOf } from "../commands/resources.js";
import { invalidArgument } from "../errors.js";
import type { CallContext } from "../grpc/calls.js";
import { FIELD_LIMITS } from "../limits.js";
import { boundedString, requireMessage, requireName, requireString, requireTrimmed, resourceRef, typeName } from "../grpc/validation.js";

const REPORT_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

export function resourceHandlers(ctx: EngineContext) {
  return {
    async reportResource(request: ReportResourceRequest, context: CallContext): Promise<ReportResourceResponse> {
      const type = typeName(requireName(request.type, "type", REPORT_NAME_PATTERN));
      const reporterType = typeName(requireName(request.reporterType, "reporter_type", REPORT_NAME_PATTERN));
      requireString(request.reporterInstanceId, "reporter_instance_id", FIELD_LIMITS.reporterInstanceId);
      const representations = requireMessage(request.representations, "representations");
      const metadata = requireMessage(representations.metadata, "representations.metadata");
      const localResourceId = requireTrimmed(metadata.localResourceId, "representations.metadata.local_resource_id");
      requireString(metadata.apiHref, "representations.metadata.api_href", FIELD_LIMITS.href);
      if (metadata.consoleHref) boundedString(metadata.consoleHref, "representations.metadata.console_href", FIELD_LIMITS.href);
      if (!(request.writeVisibility in WriteVisibility) || request.writeVisibility === WriteVisibility.UNRECOGNIZED) {
        throw invalidArgument("write_visibility", "enum.defined_only", "value must be one of the defined enum values");
      }
      const definition = `${reporterType}/${type}`;
      await reportResource(ctx, {
        resource: { type: definition, id: localResourceId },
        workspaceId: workspaceIdOf(representations.common, definition),
        immediate: request.writeVisibility === WriteVisibility.IMMEDIATE,
        caller: context.identity,
      });
      return {};
    },

    async deleteResource(request: DeleteResourceRequest, context: CallContext): Promise<DeleteResourceResponse> {
      await deleteResource(ctx, resourceRef(request.reference, "reference"), context.identity);
      return {};
    },
  };
}
