// Pending placements: ReportResource may name a workspace id that does not exist yet (inventory
// reporters learn workspace ids from elsewhere). Upstream writes the tuple at once and the resource
// becomes reachable when the workspace appears. Here the report is held WITHOUT a tuple and becomes
// one in the transaction that gives the workspace its parent, under that workspace's tenant — and
// only if the reporter's tenant (when known) is that tenant, so a report can never attach a
// resource to another tenant's workspace.
import type { Queryable } from "./db/db.js";
import type { Relationship } from "./types.js";

/** What placements need of the write in progress (write.ts's WriteContext), named here so write.ts can call in without a cycle. */
export interface PlacementWrite {
  readonly tx: Queryable;
  /** Tenant of the write; '' for public rows. */
  readonly tupleOrg: string;
  touch(rels: Relationship[]): Promise<void>;
  remove(rels: Relationship[]): Promise<void>;
}

const WORKSPACE = "rbac/workspace";
const HOST = "hbi/host";
/** The replicated tuples' partition (see repos/replicated.ts); its workspaces name their tenant by tuples. */
const REPLICATED = "~relations";
/** The relation that places a reported resource in its workspace. */
export const PLACEMENT_RELATION = "t_workspace";

export interface PendingPlacementRow {
  resource_type: string;
  resource_id: string;
  workspace_id: string;
  reporter_org: string;
  reported_at: Date;
  [k: string]: unknown;
}

/**
 * Serializes "hold a report for W" against "W gets its parent": whichever commits second sees
 * the other (READ COMMITTED re-reads after the lock), so no held report is ever orphaned.
 */
export async function lockWorkspaceId(tx: Queryable, workspaceIds: string[]): Promise<void> {
  for (const id of [...new Set(workspaceIds)].sort()) {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('gatehouse-placement:' || current_schema() || ':' || $1))", [id]);
  }
}

/** True when some committed (or this transaction's) tuple gives the workspace a parent. */
export async function workspaceExists(tx: Queryable, workspaceId: string): Promise<boolean> {
  const rows = await tx.query("SELECT 1 FROM gh_tuples WHERE resource_type = $1 AND resource_id = $2 AND relation = 't_parent' LIMIT 1", [WORKSPACE, workspaceId]);
  return rows.length > 0;
}

const placement = (resourceType: string, resourceId: string, workspaceId: string): Relationship => ({
  resourceType,
  resourceId,
  relation: PLACEMENT_RELATION,
  subjectType: WORKSPACE,
  subjectId: workspaceId,
});

/** Workspaces that `rels` give a parent (what makes a held report placeable). */
export function parentedWorkspaces(rels: Relationship[]): string[] {
  return rels.filter((r) => r.resourceType === WORKSPACE && r.relation === "t_parent").map((r) => r.resourceId);
}

/** Resources that `rels` place directly: a later report wins over a held one. */
export function placedResources(rels: Relationship[]): Relationship[] {
  return rels.filter((r) => r.relation === PLACEMENT_RELATION && r.subjectType === WORKSPACE);
}

/**
 * Drops the reports held for `resources` that the write's tenant (`org`) made or that no tenant
 * made: another tenant's held report of the same id is its own and stays. The replicated
 * partition and public rows (no tenant of their own) supersede every held report.
 */
export async function dropHeld(tx: Queryable, org: string, resources: { resourceType: string; resourceId: string }[]): Promise<void> {
  if (resources.length === 0) return;
  await tx.query(
    `DELETE FROM gh_pending_placements p USING unnest($1::text[], $2::text[]) AS d(rt, rid)
     WHERE p.resource_type = d.rt AND p.resource_id = d.rid AND ($3::text IS NULL OR p.reporter_org IN ('', $3::text))`,
    [resources.map((r) => r.resourceType), resources.map((r) => r.resourceId), org === "" || org === REPLICATED ? null : org],
  );
}

/**
 * Runs inside the write that gives `workspaceIds` a parent: every report held for them becomes
 * its placement tuple in this tenant; reports from another tenant are dropped unplaced.
 */
const MAX_DEPTH = 64;

/** The org of the `rbac/tenant:<domain>/<org>` at the top of a workspace's parent chain. */
async function tenantAtTop(tx: Queryable, workspaceId: string): Promise<string | undefined> {
  const [row] = await tx.query<{ subject_id: string }>(
    `WITH RECURSIVE up(id, depth) AS (
       SELECT $1::text, 0
       UNION SELECT t.subject_id, up.depth + 1 FROM gh_tuples t JOIN up ON t.resource_id = up.id
       WHERE t.resource_type = 'rbac/workspace' AND t.relation = 't_parent' AND t.subject_type = 'rbac/workspace' AND up.depth < ${MAX_DEPTH}
     )
     SELECT t.subject_id FROM gh_tuples t JOIN up ON t.resource_id = up.id
     WHERE t.resource_type = 'rbac/workspace' AND t.relation = 't_parent' AND t.subject_type = 'rbac/tenant' LIMIT 1`,
    [workspaceId],
  );
  const slash = row?.subject_id.indexOf("/") ?? -1;
  return row && slash >= 0 ? row.subject_id.slice(slash + 1) : undefined;
}

export async function adoptHeld(w: PlacementWrite, workspaceIds: string[]): Promise<void> {
  if (workspaceIds.length === 0 || w.tupleOrg === "") return;
  await lockWorkspaceId(w.tx, workspaceIds);
  const held = await w.tx.query<PendingPlacementRow>("DELETE FROM gh_pending_placements WHERE workspace_id = ANY($1::text[]) RETURNING *", [workspaceIds]);
  const owners = new Map<string, string | undefined>();
  for (const id of workspaceIds) owners.set(id, w.tupleOrg === REPLICATED ? await tenantAtTop(w.tx, id) : w.tupleOrg);
  for (const row of held) {
    if (row.reporter_org !== "" && row.reporter_org !== owners.get(row.workspace_id)) continue;
    if (row.resource_type === HOST && !(await releaseHostRow(w, row.resource_id))) continue;
    if (await placedElsewhere(w, row.resource_type, row.resource_id)) continue;
    const previous = await w.tx.query<{ subject_id: string }>(
      "SELECT subject_id FROM gh_tuples WHERE org_id = $1 AND resource_type = $2 AND resource_id = $3 AND relation = $4 AND subject_type = $5",
      [w.tupleOrg, row.resource_type, row.resource_id, PLACEMENT_RELATION, WORKSPACE],
    );
    await w.remove(previous.filter((p) => p.subject_id !== row.workspace_id).map((p) => placement(row.resource_type, row.resource_id, p.subject_id)));
    await w.touch([placement(row.resource_type, row.resource_id, row.workspace_id)]);
  }
}

/**
 * true = the resource is already placed in another tenant (by a tuple, e.g. another tenant's held
 * report placed first): it stays theirs and this held report is dropped, as for a host row.
 */
async function placedElsewhere(w: PlacementWrite, resourceType: string, resourceId: string): Promise<boolean> {
  const rows = await w.tx.query("SELECT 1 FROM gh_tuples WHERE resource_type = $1 AND resource_id = $2 AND relation = $3 AND subject_type = $4 AND org_id <> $5 LIMIT 1", [
    resourceType,
    resourceId,
    PLACEMENT_RELATION,
    WORKSPACE,
    w.tupleOrg,
  ]);
  return rows.length > 0;
}

/**
 * A host placed by a held report sits in a workspace known as tuples (one replicated from another
 * management plane), so it leaves the hosts table of its tenant. false = the host id belongs to
 * another tenant: it stays theirs and the held report is dropped.
 */
async function releaseHostRow(w: PlacementWrite, hostId: string): Promise<boolean> {
  const [existing] = await w.tx.query<{ org_id: string }>("SELECT org_id FROM gh_hosts WHERE id = $1", [hostId]);
  if (existing && existing.org_id !== w.tupleOrg) return false;
  if (existing) await w.tx.query("DELETE FROM gh_hosts WHERE id = $1 AND org_id = $2", [hostId, w.tupleOrg]);
  return true;
}
