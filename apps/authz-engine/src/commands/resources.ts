import type { Relationship } from "@gatehouse/evaluator";
import { EngineError, invalidArgument } from "../errors.js";
import { FIELD_LIMITS } from "../limits.js";
import type { EngineContext } from "./context.js";
import { ensureConsistency } from "./consistency.js";
import { orgOfWorkspace, workspacesOf } from "./tenant-of.js";
import type { ObjectRef } from "./types.js";
import type { WriteCaller } from "./write-policy.js";

/** The stored relation behind the wire's `workspace` relation (stored relations carry `t_`). */
export const WORKSPACE_RELATION = "t_workspace";
const HOST_TYPE = "hbi/host";

export interface ReportedResource {
  resource: ObjectRef;
  /** `common.workspace_id`, when the representation has one. */
  workspaceId: string | undefined;
  /** Wait until the write is visible to checks before answering. */
  immediate: boolean;
  caller: WriteCaller | null;
}

/** Reads `common.workspace_id`; a host must have one (its JSON schema requires it upstream). */
export function workspaceIdOf(common: Record<string, unknown> | undefined, definition: string): string | undefined {
  const value = common?.["workspace_id"];
  if (value === undefined || value === null) {
    if (definition === HOST_TYPE) {
      throw invalidArgument("representations.common.workspace_id", "required", "a host must name its workspace");
    }
    return undefined;
  }
  if (typeof value !== "string" || value.length === 0) {
    throw invalidArgument("representations.common.workspace_id", "string.min_len", "value must be a non-empty string");
  }
  if (value.length > FIELD_LIMITS.id) {
    throw invalidArgument("representations.common.workspace_id", "string.max_len", `value length must be at most ${FIELD_LIMITS.id} characters`);
  }
  return value;
}

/**
 * The tenant is not on the wire: it is the org owning the workspace. If the graph does not know
 * the workspace yet (created a moment ago), catch up with the store once before giving up.
 */
async function orgOf(ctx: EngineContext, workspaceId: string): Promise<string> {
  const known = orgOfWorkspace(ctx.graph, workspaceId, ctx.domain);
  if (known !== undefined) return known;
  await ensureConsistency(ctx, { kind: "fully-consistent" });
  const caughtUp = orgOfWorkspace(ctx.graph, workspaceId, ctx.domain);
  if (caughtUp === undefined) throw new EngineError("not-found", `workspace not found: ${workspaceId}`);
  return caughtUp;
}

/** Places the resource in its workspace (one store transaction, replacing any previous one). */
export async function reportResource(ctx: EngineContext, report: ReportedResource): Promise<void> {
  if (report.workspaceId === undefined) return;
  const orgId = await orgOf(ctx, report.workspaceId);
  ctx.writePolicy.authorize(report.caller, report.resource.type, orgId);
  let revision: number;
  if (report.resource.type === HOST_TYPE) {
    revision = await ctx.writer.reportHost(orgId, report.resource.id, report.workspaceId);
  } else {
    const tuple = (workspaceId: string): Relationship => ({
      resourceType: report.resource.type,
      resourceId: report.resource.id,
      relation: WORKSPACE_RELATION,
      subjectType: "rbac/workspace",
      subjectId: workspaceId,
    });
    const previous = workspacesOf(ctx.graph, report.resource).filter((ws) => ws !== report.workspaceId);
    revision = await ctx.writer.writeRelationships(orgId, { delete: previous.map(tuple), touch: [tuple(report.workspaceId)] });
  }
  if (report.immediate) await ctx.graph.waitFor(revision, ctx.freshnessTimeoutMs);
}

/** Removes the resource from its workspace; an unknown resource is NOT_FOUND. */
export async function deleteResource(ctx: EngineContext, resource: ObjectRef, caller: WriteCaller | null): Promise<void> {
  await ensureConsistency(ctx, { kind: "fully-consistent" });
  const workspaces = workspacesOf(ctx.graph, resource);
  const first = workspaces[0];
  // Refused before existence is told: a caller that may not write this type learns nothing.
  if (first === undefined) {
    ctx.writePolicy.authorize(caller, resource.type, caller?.orgId ?? "");
    throw new EngineError("not-found", `resource not found: ${resource.type}:${resource.id}`);
  }
  const orgId = await orgOf(ctx, first);
  ctx.writePolicy.authorize(caller, resource.type, orgId);
  if (resource.type === HOST_TYPE) {
    await ctx.writer.deleteHost(orgId, resource.id);
    return;
  }
  await ctx.writer.writeRelationships(orgId, {
    touch: [],
    delete: workspaces.map((ws) => ({ resourceType: resource.type, resourceId: resource.id, relation: WORKSPACE_RELATION, subjectType: "rbac/workspace", subjectId: ws })),
  });
}
