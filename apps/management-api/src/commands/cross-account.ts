// /api/rbac/v1/cross-account-requests/: an associate asks an organisation for seeded roles between
// two dates; the organisation's admins approve or deny; an approved request grants the roles from
// its start to its end date (store: repos/cross-account.ts). Rules: cross-account-rules.ts.
import { isStoreError, type AuditEntry, type CrossAccountListQuery, type CrossAccountRequest, type Page, type Written } from "@gatehouse/store";
import type { PermissionRecord } from "../authz/catalogue.js";
import type { RequestContext } from "../domain/context.js";
import { forbidden, invalid, notFound } from "../domain/errors.js";
import { checkDates, checkTarget, decidePatch, decidePut, resolveRoles, type Actor, type QUERY_BY_VALUES, type RequestEdit } from "./cross-account-rules.js";
import { settled, type Services } from "./services.js";

export type QueryBy = (typeof QUERY_BY_VALUES)[number];

const actorOf = (ctx: RequestContext): Actor => ({
  orgId: ctx.caller.orgId,
  userId: ctx.caller.userId,
  isOrgAdmin: ctx.caller.isOrgAdmin,
  isInternal: ctx.caller.isInternal === true && !ctx.caller.isServiceAccount,
});

/**
 * upstream's access rule for reads: by target organisation for its admins, by user id for
 * associates (a malformed `query_by` was refused at the edge).
 */
export function readerAs(ctx: RequestContext, by: QueryBy): QueryBy {
  const actor = actorOf(ctx);
  if (by === "target_org" ? !actor.isOrgAdmin : !actor.isInternal) throw forbidden();
  return by;
}

const auditEntry = (ctx: RequestContext, request: CrossAccountRequest, action: AuditEntry["action"], description: string): AuditEntry[] => [
  { principalUsername: ctx.caller.username, resourceType: "cross_account_request", action, resourceUuid: request.requestId, description },
];

/** Role names resolved against the public roles; a refusal is raised only when called. */
async function rolesOf(services: Services, names: readonly string[] | undefined): Promise<(() => string[]) | undefined> {
  if (names === undefined) return undefined;
  const found = await services.store.crossAccount.publicRolesByDisplayName([...new Set(names)]);
  return () => resolveRoles(names, found);
}

export interface CreateInput {
  target_org: string;
  target_account?: string | null | undefined;
  start_date: Date;
  end_date: Date;
  roles: string[];
}

export async function createCrossAccountRequest(services: Services, ctx: RequestContext, input: CreateInput): Promise<Written<CrossAccountRequest>> {
  const actor = actorOf(ctx);
  if (!actor.isInternal) throw forbidden();
  checkTarget(actor, input.target_org);
  if (!(await services.store.tenants.find(input.target_org))) throw invalid(`Org ID '${input.target_org}' does not exist.`, "cross-account-request");
  const roleIds = (await rolesOf(services, input.roles))!();
  checkDates(input.start_date, input.end_date, "pending", services.now());
  const { caller } = ctx;
  return services.store.crossAccount.create(
    {
      targetOrg: input.target_org,
      targetAccount: input.target_account ?? null,
      userId: caller.userId,
      requester: { username: caller.username, email: caller.email ?? null, firstName: caller.firstName ?? null, lastName: caller.lastName ?? null },
      startDate: input.start_date,
      endDate: input.end_date,
      roleIds,
    },
    (created) => auditEntry(ctx, created, "create", `Created cross-account request ${created.requestId} of user ${created.userId} for org ${created.targetOrg}`),
  );
}

export interface ListInput {
  queryBy: QueryBy;
  status?: string | undefined;
  orgId?: string | undefined;
  approvedOnly?: boolean | undefined;
  orderBy?: CrossAccountListQuery["orderBy"];
  limit: number;
  offset: number;
}

export async function listCrossAccountRequests(services: Services, ctx: RequestContext, input: ListInput): Promise<{ by: QueryBy; page: Page<CrossAccountRequest> }> {
  const by = readerAs(ctx, input.queryBy);
  const list = (value: string | undefined) => (value ? value.split(",").filter((v) => v !== "") : undefined);
  const statuses = list(input.status);
  const targetOrgs = list(input.orgId);
  const page = await services.store.crossAccount.list({
    by: by === "target_org" ? { targetOrg: ctx.caller.orgId } : { userId: ctx.caller.userId },
    ...(statuses ? { statuses } : {}),
    ...(targetOrgs ? { targetOrgs } : {}),
    ...(input.approvedOnly ? { approvedOnly: true } : {}),
    ...(input.orderBy ? { orderBy: input.orderBy } : {}),
    limit: input.limit,
    offset: input.offset,
  });
  return { by, page };
}

/** One request the caller may read as `query_by` says; another's is not found. */
export async function getCrossAccountRequest(services: Services, ctx: RequestContext, id: string | undefined, queryBy: QueryBy): Promise<{ by: QueryBy; request: CrossAccountRequest }> {
  const by = readerAs(ctx, queryBy);
  const request = id === undefined ? undefined : await services.store.crossAccount.get(id);
  const mine = request && (by === "target_org" ? request.targetOrg === ctx.caller.orgId : request.userId === ctx.caller.userId);
  if (!request || !mine) throw notFound();
  return { by, request };
}

export interface EditInput {
  keys: string[];
  status?: string | undefined;
  start_date?: Date | undefined;
  end_date?: Date | undefined;
  roles?: string[] | undefined;
  target_org?: string | undefined;
  target_account?: string | null | undefined;
}

async function editOf(services: Services, input: EditInput): Promise<RequestEdit> {
  return {
    keys: input.keys,
    status: input.status,
    startDate: input.start_date,
    endDate: input.end_date,
    roles: await rolesOf(services, input.roles),
    targetOrg: input.target_org,
    targetAccount: input.target_account,
  };
}

const describeChange = (before: CrossAccountRequest, after: CrossAccountRequest): string =>
  before.status !== after.status
    ? `Cross-account request ${after.requestId} of user ${after.userId}: status ${before.status} to ${after.status}`
    : `Cross-account request ${after.requestId} of user ${after.userId}: edited dates and roles`;

/**
 * PATCH and PUT. The rules run under the organisation's write lock on the request as stored;
 * an id that is malformed, unknown or another's is refused in the rules' own words, so its
 * existence is not told.
 */
export async function changeCrossAccountRequest(services: Services, ctx: RequestContext, method: "PATCH" | "PUT", id: string, input: EditInput): Promise<Written<CrossAccountRequest>> {
  const actor = actorOf(ctx);
  const edit = await editOf(services, input);
  const decide = method === "PATCH" ? decidePatch : decidePut;
  try {
    const written = await services.store.crossAccount.update(
      id,
      (current, now) => decide(actor, current, edit, now),
      ({ before, after }) => auditEntry(ctx, after, "edit", describeChange(before, after)),
    );
    return await settled(services, written);
  } catch (error) {
    if (isStoreError(error, "not-found")) decide(actor, undefined, edit, services.now());
    throw error;
  }
}

/** Each role's permissions as upstream's PermissionSerializer shows them (the catalogue's records). */
export async function rolePermissions(services: Services, requests: readonly CrossAccountRequest[]): Promise<(roleId: string) => PermissionRecord[]> {
  const access = await services.store.v1.accessOf([...new Set(requests.flatMap((r) => r.roles.map((role) => role.id)))]);
  const records = new Map(services.catalogue.records.map((record) => [record.permission, record]));
  return (roleId) =>
    [...new Set((access.get(roleId) ?? []).map((entry) => entry.permission))].map((permission) => {
      const [application = "", resource_type = "", verb = ""] = permission.split(":");
      return records.get(permission) ?? { application, resource_type, verb, permission, description: "", requires: [] };
    });
}
