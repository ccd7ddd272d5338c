import type { BindingSubject } from "@gatehouse/store";
import type { RequestContext } from "../domain/context.js";
import { invalid } from "../domain/errors.js";
import { echo } from "../schemas/common.js";
import { BindingViews } from "./binding-views.js";
import { principalUuid } from "./principals.js";
import type { Services } from "./services.js";

/** by-subject's `order_by` fields per subject type, as insights-rbac's pagination names them (dot notation only). */
const GROUP_FIELDS = ["group.name", "group.description", "group.user_count", "group.uuid", "group.created", "group.modified", "role.name", "role.created", "role.modified", "last_modified"];
const USER_FIELDS = ["user.username", "user.uuid", "role.name", "role.created", "role.modified", "last_modified"];

export interface OrderKey {
  field: string;
  desc: boolean;
}

/**
 * Parses a comma list such as `group.name,-group.modified`; none given: insights-rbac's defaults
 * (groups most recently modified first, users by username).
 */
export function parseBySubjectOrder(text: string | undefined, subjectType: "group" | "user"): OrderKey[] {
  const keys = parseOrderKeys(text, subjectType === "user" ? USER_FIELDS : GROUP_FIELDS);
  if (keys.length > 0) return keys;
  return subjectType === "user" ? [{ field: "user.username", desc: false }] : [{ field: "group.modified", desc: true }];
}

/** `order_by` as a comma list of dot-notation fields, `-` for descending; an unknown field is a 400 worded as upstream's. */
export function parseOrderKeys(text: string | undefined, valid: readonly string[]): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const raw of (text ?? "").split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const desc = part.startsWith("-");
    const field = desc ? part.slice(1) : part;
    if (!valid.includes(field)) throw invalid(`Invalid ordering field '${echo(part)}'. Valid fields: ${[...valid].sort().join(", ")}`, "order_by");
    keys.push({ field, desc });
  }
  return keys;
}

type Sortable = string | number;

/** Sorts entries by the keys; a subject bound with several roles sorts by its first (ascending) or last (descending) role value. */
export async function sortBySubject<E extends { subject: BindingSubject; roleIds: Set<string>; modified: Date }>(
  services: Services,
  ctx: RequestContext,
  entries: E[],
  keys: OrderKey[],
): Promise<E[]> {
  if (keys.length === 0) return entries;
  const views = new BindingViews(services, ctx, { subject: true, resourceName: false });
  const orgId = ctx.tenant.orgId;
  // Group times (the default order) come from one read of the tenant's groups, not one per subject.
  let groupTimes: Promise<Map<string, { created: Date; modified: Date }>> | undefined;
  const timesOf = async (groupId: string) => {
    groupTimes ??= services.store.groups.list(orgId, { limit: -1 }).then((page) => new Map(page.data.map((g) => [g.id, g])));
    return (await groupTimes).get(groupId);
  };
  const sortValueOf = async (entry: E, { field, desc }: OrderKey): Promise<Sortable> => {
    const [object, attribute] = field.split(".") as [string, string | undefined];
    if (field === "last_modified") return entry.modified.getTime();
    if (object === "role") {
      const values = await Promise.all(
        [...entry.roleIds].map(async (id) => {
          const role = await views.role(id);
          if (!role) return "";
          return attribute === "name" ? role.name.toLowerCase() : (attribute === "created" ? role.created : role.modified).getTime();
        }),
      );
      const sorted = values.sort(compare);
      return (desc ? sorted[sorted.length - 1] : sorted[0]) ?? "";
    }
    if (field === "group.uuid") return entry.subject.id;
    if (field === "user.uuid") return principalUuid(orgId, entry.subject.id);
    if (field === "group.created" || field === "group.modified") {
      const group = await timesOf(entry.subject.id);
      return group ? (field === "group.created" ? group.created : group.modified).getTime() : 0;
    }
    const view = await views.subject(entry.subject);
    if (field === "user.username") return view.user?.username ?? "";
    if (field === "group.user_count") return view.group?.user_count ?? 0;
    if (field === "group.description") return (view.group?.description ?? "").toLowerCase();
    return (view.group?.name ?? "").toLowerCase();
  };
  const rows = await Promise.all(entries.map(async (entry) => ({ entry, values: await Promise.all(keys.map((key) => sortValueOf(entry, key))) })));
  rows.sort((a, b) => {
    for (const [i, key] of keys.entries()) {
      const order = compare(a.values[i]!, b.values[i]!);
      if (order !== 0) return key.desc ? -order : order;
    }
    return 0;
  });
  return rows.map((row) => row.entry);
}

function compare(a: Sortable, b: Sortable): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
