// insights-rbac's rules for cross-account requests, free of I/O: who may change a request and how,
// and which dates a request may have. Refusals are domain errors (src/domain/errors.ts) in
// upstream's words; the HTTP edge (http/errors.ts) gives them upstream's statuses.
import type { CrossAccountChange, CrossAccountRequest, CrossAccountStatus, PublicRoleMatch } from "@gatehouse/store";
import { invalid } from "../domain/errors.js";
import { echo } from "../schemas/common.js";

/** Upstream names the refused part (`source`) before its words. */
const refuse = (source: string, message: string) => invalid(message, source);

export { QUERY_BY_VALUES } from "../schemas/cross-account.js";
export const PATCH_FIELDS = ["start_date", "end_date", "roles", "status"] as const;
const DAY_MS = 86_400_000;

/** Who is asking, as far as the rules care. */
export interface Actor {
  orgId: string;
  userId: string;
  isOrgAdmin: boolean;
  isInternal: boolean;
}

/** The calendar day (UTC) of a time, as a day number: upstream compares `.date()`s in UTC. */
const day = (time: number) => Math.floor(time / DAY_MS);

/** The model's date rules (checked on every save, as upstream's `validate_input_value`). */
export function checkDates(start: Date, end: Date, status: CrossAccountStatus, now: number): void {
  if (status !== "expired" && day(end.getTime()) < day(now)) throw refuse("detail", "Please verify the end dates are not in the past.");
  if (day(start.getTime()) > day(now + 60 * DAY_MS)) throw refuse("detail", "Start date must be within 60 days of today.");
  if (start.getTime() > end.getTime()) throw refuse("detail", "Start date must be earlier than end date.");
  if (end.getTime() - start.getTime() > 365 * DAY_MS) throw refuse("detail", "Access duration may not be longer than one year.");
}

/**
 * Role names to seeded role ids, in the order named: an unknown name, or a role that is not a
 * system role (Gatehouse's platform default roles), is refused as upstream refuses it.
 */
export function resolveRoles(names: readonly string[], found: readonly PublicRoleMatch[]): string[] {
  const byName = new Map<string, PublicRoleMatch>();
  for (const match of found) if (!byName.has(match.displayName) || match.system) byName.set(match.displayName, match);
  return names.map((name) => {
    const role = byName.get(name);
    if (!role) throw refuse("cross-account-request", `Role '${echo(name)}' does not exist.`);
    if (!role.system) throw refuse("cross-account-request", "Only system roles may be assigned to a cross-account-request.");
    return role.id;
  });
}

/** The organisation a new request targets: not the associate's own. */
export function checkTarget(actor: Actor, targetOrg: string): void {
  if (targetOrg === actor.orgId) throw refuse("cross-account-request", "Creating a cross access request for your own org id is not allowed.");
}

/** Fields of a PATCH or PUT body the rules look at (already well-formed). */
export interface RequestEdit {
  /** Every key the body has, in its order. */
  keys: string[];
  status?: string | undefined;
  startDate?: Date | undefined;
  endDate?: Date | undefined;
  /** The roles named, resolved (or the refusal to raise once the caller may make the change). */
  roles?: (() => string[]) | undefined;
  targetOrg?: string | undefined;
  targetAccount?: string | null | undefined;
}

/**
 * PATCH: the target organisation's admins move a pending, approved or denied request to approved
 * or denied (status only); the requestor cancels its pending request (and may change its dates
 * and roles with it). Anyone else, or a request that does not exist, is refused alike.
 */
export function decidePatch(actor: Actor, current: CrossAccountRequest | undefined, edit: RequestEdit, now: number): CrossAccountChange {
  const source = "cross-account partial update";
  if (current && actor.orgId === current.targetOrg) {
    if (!actor.isOrgAdmin) throw refuse(source, "Only org admins may update status.");
    if (!["pending", "approved", "denied"].includes(current.status)) throw refuse(source, "Only pending/approved/denied requests may be updated.");
    if (edit.status !== "approved" && edit.status !== "denied") throw refuse(source, "Request status may only be updated to approved/denied.");
    if (edit.keys.length > 1 || edit.keys[0] !== "status") throw refuse(source, "Only status may be updated.");
  } else if (current && actor.isInternal && actor.userId === current.userId) {
    if (current.status !== "pending" || edit.status !== "cancelled") throw refuse(source, "Request status may only be updated from pending to cancelled.");
    for (const key of edit.keys) {
      if (!(PATCH_FIELDS as readonly string[]).includes(key)) {
        throw refuse(source, `Field '${echo(key)}' is not supported. Please use one or more of: ['${PATCH_FIELDS.join("', '")}']`);
      }
    }
  } else {
    throw refuse(source, "User does not have permission to update the request.");
  }
  const change: CrossAccountChange = { status: edit.status as CrossAccountStatus };
  if (edit.roles) change.roleIds = edit.roles();
  if (edit.startDate) change.startDate = edit.startDate;
  if (edit.endDate) change.endDate = edit.endDate;
  checkDates(change.startDate ?? current.startDate, change.endDate ?? current.endDate, change.status ?? current.status, now);
  return change;
}

/** PUT: only the requestor, only while pending, never the status or the target organisation. */
export function decidePut(actor: Actor, current: CrossAccountRequest | undefined, edit: RequestEdit, now: number): CrossAccountChange {
  if (!current || !actor.isInternal || actor.userId !== current.userId) throw refuse("cross-account update", "Only the requestor may update the cross access request.");
  if (current.status !== "pending") throw refuse("cross-account update", "Only pending requests may be updated.");
  if (edit.status && edit.status !== "pending") {
    throw refuse("cross-account update", "The status may not be updated through PUT endpoint. Please use PATCH to update the status of the request.");
  }
  if (edit.targetOrg && edit.targetOrg !== current.targetOrg) throw refuse("cross-account-update", "Target org must stay the same.");
  for (const [field, value] of [
    ["start_date", edit.startDate],
    ["end_date", edit.endDate],
    ["roles", edit.roles],
  ] as const) {
    if (value === undefined) throw refuse("cross-account-request", `Field ${field} must be specified.`);
  }
  checkTarget(actor, current.targetOrg);
  const change: CrossAccountChange = { startDate: edit.startDate!, endDate: edit.endDate!, roleIds: edit.roles!() };
  if (edit.targetAccount !== undefined) change.targetAccount = edit.targetAccount;
  checkDates(change.startDate!, change.endDate!, current.status, now);
  return change;
}
