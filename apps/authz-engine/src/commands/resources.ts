import type { Relationship } from "@gatehouse/evaluator";
import { isStoreError } from "@gatehouse/store";
import { EngineError, invalidArgument } from "../errors.js";
import { FIELD_LIMITS, isWellFormedText, UTF8_RULE } from "../limits.js";
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
  if (!isWellFormedText(value)) throw invalidArgument("representations.common.workspace_id", UTF8_RULE.rule, UTF8_RULE.detail);
  return value;
}

/**
 * The tenant is not on the wire: it is the org owning the workspace. If the graph does not know
 * the workspace yet (created a moment ago), catch up with the store once; undefined = unknown.
 */
async function orgOf(ctx: EngineContext, workspaceId: string): Promise<string | undefined> {
  const known = orgOfWorkspace(ctx.graph, workspaceId, ctx.domain, ctx.now());
  if (known !== undefined) return known;
  await ensureConsistency(ctx, { kind: "fully-consistent" });
  return orgOfWorkspace(ctx.graph, workspaceId, ctx.domain, ctx.now());
}

async function requireOrgOf(ctx: EngineContext, workspaceId: string): Promise<string> {
  const orgId = await orgOf(ctx, workspaceId);
  if (orgId === undefined) throw new EngineError("not-found", `workspace not found: ${workspaceId}`);
  return orgId;
}

/**
 * Places the resource in its workspace (one store transaction, replacing any previous one).
 * A workspace id nobody has created yet is accepted as upstream does: the report is held and
 * placed when that workspace appears, in its tenant (see the store's pending placements).
 */
export async function reportResource(ctx: EngineContext, report: ReportedResource): Promise<void> {
  const { type } = report.resource;
  if (ctx.model.typeIndex(type) === undefined || !ctx.model.isRelation(type, WORKSPACE_RELATION)) {
    throw new EngineError("unknown-type", `unknown resource type: ${type} is not a reportable type of the schema`);
  }
  if (report.workspaceId === undefined) return;
  // Refused before existence is told: an unregistered caller or type learns nothing.
  const heldOrg = ctx.writePolicy.heldOrg(report.caller, type);
  let orgId = await orgOf(ctx, report.workspaceId);
  // Another tenant's workspace answers exactly as one nobody has created: the report is held,
  // bound to the reporter's tenant, so it is never placed there (no existence oracle).
  const foreign = orgId !== undefined && !mayWrite(ctx, report.caller, type, orgId);
  if (orgId === undefined || foreign) {
    // Held reports obey the same write tenancy: bound to the reporter's tenant unless it may write
    // into any, so a workspace of another tenant created later never receives it.
    const hold = await ctx.writer.holdPlacement(report.resource, report.workspaceId, heldOrg, foreign);
    if (hold.held) return;
    // Created between our look and the hold: it is in the store, so catch up and place it.
    orgId = await requireOrgOf(ctx, report.workspaceId);
  }
  ctx.writePolicy.authorize(report.caller, type, orgId);
  const elsewhere = tenantElsewhere(ctx, report.resource, orgId);
  if (elsewhere !== undefined) {
    // Only a caller that may write into that tenant too may learn the resource is there.
    if (mayWrite(ctx, report.caller, type, elsewhere)) throw new EngineError("permission-denied", NOT_YOURS);
    return acceptUnplaced(ctx, report, heldOrg);
  }
  let revision: number;
  try {
    revision =
      report.resource.type === HOST_TYPE
        ? await orTuples(ctx.writer.reportHost(orgId, report.resource.id, report.workspaceId), () => placeByTuple(ctx, orgId, report.resource, report.workspaceId!))
        : await placeByTuple(ctx, orgId, report.resource, report.workspaceId);
  } catch (error) {
    // The store saw another tenant's host the graph had not applied yet: the same silence, unless
    // the caller may write into every tenant (it may know).
    if (isStoreError(error, "cross-tenant") && heldOrg !== null) return acceptUnplaced(ctx, report, heldOrg);
    throw error;
  }
  if (report.immediate) await ctx.graph.waitFor(revision, ctx.freshnessTimeoutMs);
}

/**
 * A report of a resource that lives in a tenant the caller may not write into is answered as a
 * report of a resource nobody reported before (OK, no text), and costs what that one costs: one
 * store write (dropping the caller's own held report of it, as any later report of its does) and,
 * for an immediate report, a wait until the graph has what the store has. Nothing is placed: the
 * resource stays where it is, in its tenant.
 */
async function acceptUnplaced(ctx: EngineContext, report: ReportedResource, heldOrg: string | null): Promise<void> {
  await ctx.writer.releasePlacement(report.resource, heldOrg);
  if (report.immediate) await ensureConsistency(ctx, { kind: "fully-consistent" });
}

function mayWrite(ctx: EngineContext, caller: WriteCaller | null, definition: string, orgId: string): boolean {
  try {
    ctx.writePolicy.authorize(caller, definition, orgId);
    return true;
  } catch (error) {
    if (error instanceof EngineError && error.code === "permission-denied") return false;
    throw error;
  }
}

/** The refusal, to a caller that may write into both tenants, of a move across them (names neither). */
const NOT_YOURS = "the resource cannot be reported into this workspace";

/**
 * A resource stays in its tenant: a report may move it between workspaces of one tenant, never
 * into another's (it would then be reachable from both). The other tenant it is placed in, if any.
 * Hosts are checked again in the store's transaction.
 */
function tenantElsewhere(ctx: EngineContext, resource: ObjectRef, orgId: string): string | undefined {
  for (const ws of workspacesOf(ctx.graph, resource, ctx.now())) {
    const current = orgOfWorkspace(ctx.graph, ws, ctx.domain, ctx.now());
    if (current !== undefined && current !== orgId) return current;
  }
  return undefined;
}

const placementTuple = (resource: ObjectRef, workspaceId: string): Relationship => ({
  resourceType: resource.type,
  resourceId: resource.id,
  relation: WORKSPACE_RELATION,
  subjectType: "rbac/workspace",
  subjectId: workspaceId,
});

/** The placement as a plain tuple, replacing the previous one. */
function placeByTuple(ctx: EngineContext, orgId: string, resource: ObjectRef, workspaceId: string): Promise<number> {
  const previous = workspacesOf(ctx.graph, resource, ctx.now()).filter((ws) => ws !== workspaceId);
  return ctx.writer.writeRelationships(orgId, { delete: previous.map((ws) => placementTuple(resource, ws)), touch: [placementTuple(resource, workspaceId)] });
}

/**
 * Hosts live in the store's hosts table when their workspace is one of its workspace rows; a
 * workspace known only as tuples (replicated from another management plane) holds plain tuples.
 */
async function orTuples(write: Promise<number>, fallback: () => Promise<number>): Promise<number> {
  try {
    return await write;
  } catch (error) {
    if (isStoreError(error, "not-found")) return fallback();
    throw error;
  }
}

/**
 * Removes the resource from its workspace (or drops its held report). An unknown resource and
 * one in a tenant the caller may not write into are the same NOT_FOUND (no existence oracle).
 */
export async function deleteResource(ctx: EngineContext, resource: ObjectRef, caller: WriteCaller | null): Promise<void> {
  await ensureConsistency(ctx, { kind: "fully-consistent" });
  const workspaces = workspacesOf(ctx.graph, resource, ctx.now());
  const first = workspaces[0];
  // Refused before existence is told: a caller that may not write this type learns nothing.
  const reporterOrg = ctx.writePolicy.heldOrg(caller, resource.type);
  const orgId = first === undefined ? undefined : await orgOf(ctx, first);
  if (orgId === undefined || !mayWrite(ctx, caller, resource.type, orgId)) {
    if (await ctx.writer.releasePlacement(resource, reporterOrg)) return;
    throw new EngineError("not-found", `resource not found: ${resource.type}:${resource.id}`);
  }
  const removeTuples = () => ctx.writer.writeRelationships(orgId, { touch: [], delete: workspaces.map((ws) => placementTuple(resource, ws)) });
  await (resource.type === HOST_TYPE ? orTuples(ctx.writer.deleteHost(orgId, resource.id), removeTuples) : removeTuples());
  // A later report into a workspace not created yet must not bring it back.
  await ctx.writer.releasePlacement(resource, reporterOrg);
}
