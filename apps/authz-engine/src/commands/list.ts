import { lookupResourceIds, lookupSubjects } from "@gatehouse/evaluator";
import type { EngineContext } from "./context.js";
import { currentToken, ensureConsistency } from "./consistency.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { SortedIds } from "./sorted-ids.js";
import type { ConsistencyRequirement, ObjectRef, SubjectRef } from "./types.js";

export interface PageRequest {
  limit?: number;
  continuationToken?: string;
}

/**
 * One page as a window over the (cached, shared) result: nothing is copied or encoded up front,
 * and the result is put in order only as far as pages are read (`SortedIds`), so the first item
 * can be sent as soon as it is known, before the rest of a large answer is ordered. Each item's
 * cursor ("resume after this id") is encoded when it is sent, by `cursorAt`.
 */
export interface ListPage {
  ids: SortedIds;
  /** This page is ids[start, end). */
  start: number;
  end: number;
  token: string;
}

export function cursorAt(page: ListPage, index: number): string {
  return encodeCursor(page.ids.at(index));
}

/** The page's ids with their cursors (tests and small callers). */
export function itemsOf(page: ListPage): { id: string; cursor: string }[] {
  const items: { id: string; cursor: string }[] = [];
  for (let i = page.start; i < page.end; i++) items.push({ id: page.ids.at(i), cursor: cursorAt(page, i) });
  return items;
}

function pageOf(ctx: EngineContext, sortedIds: SortedIds, page: PageRequest): ListPage {
  const limit = Math.min(page.limit ?? ctx.listDefaultLimit, ctx.listMaxLimit);
  const start = page.continuationToken ? sortedIds.firstIndexAfter(decodeCursor(page.continuationToken)) : 0;
  return { ids: sortedIds, start, end: Math.min(sortedIds.length, start + limit), token: currentToken(ctx) };
}

/**
 * Cursors compare ids by code units. A sorted answer is checked (O(n)) and sorted if the
 * evaluator's order differs; an unsorted one is ordered lazily, as pages are read.
 */
function codeUnitSorted(found: { ids: string[]; sorted: boolean }): SortedIds {
  const { ids } = found;
  if (!found.sorted) return SortedIds.unsorted(ids);
  for (let i = 1; i < ids.length; i++) {
    if ((ids[i - 1] as string) > (ids[i] as string)) return SortedIds.sorted([...ids].sort());
  }
  return SortedIds.sorted(ids);
}

function subjectKey(subject: SubjectRef): string {
  return `${subject.type}:${subject.id}#${subject.relation ?? ""}`;
}

/** Objects of `objectType` on which the subject holds `permission`: one reverse lookup, paged. */
/**
 * Lookups are cached per applied revision, but an expiring grant changes answers without a new
 * revision: drop what expired by now first, and key the cache by the graph's mutation count too.
 */
function expiryState(ctx: EngineContext): string {
  const graph = ctx.graph.graph;
  if (graph.expiring > 0) graph.expire(ctx.now());
  return `${graph.mutations}\u0000`;
}

export async function listObjects(
  ctx: EngineContext,
  request: { objectType: string; permission: string; subject: SubjectRef; page: PageRequest; consistency: ConsistencyRequirement },
): Promise<ListPage> {
  // Decode the cursor before waiting, so a bad token fails fast.
  if (request.page.continuationToken) decodeCursor(request.page.continuationToken);
  await ensureConsistency(ctx, request.consistency);
  const key = `${expiryState(ctx)}objects\u0000${request.objectType}\u0000${request.permission}\u0000${subjectKey(request.subject)}`;
  const ids = ctx.lookupCache.getOrCompute(ctx.graph.appliedRevision, key, () =>
    codeUnitSorted(lookupResourceIds(ctx.graph.graph, request.objectType, request.permission, request.subject, { now: ctx.now() })),
  );
  return pageOf(ctx, ids, request.page);
}

/** Subjects of `subjectType` holding `permission` on the resource; a public wildcard is the id "*". */
export async function listSubjects(
  ctx: EngineContext,
  request: {
    resource: ObjectRef;
    permission: string;
    subjectType: string;
    subjectRelation?: string;
    page: PageRequest;
    consistency: ConsistencyRequirement;
  },
): Promise<ListPage> {
  if (request.page.continuationToken) decodeCursor(request.page.continuationToken);
  await ensureConsistency(ctx, request.consistency);
  const key = `${expiryState(ctx)}subjects\u0000${request.resource.type}:${request.resource.id}\u0000${request.permission}\u0000${request.subjectType}#${request.subjectRelation ?? ""}`;
  const ids = ctx.lookupCache.getOrCompute(ctx.graph.appliedRevision, key, () => {
    const found = lookupSubjects(ctx.graph.graph, request.resource, request.permission, request.subjectType, request.subjectRelation, { now: ctx.now() });
    const all = found.wildcard ? [...found.ids, "*"] : [...found.ids];
    return SortedIds.sorted(all.sort());
  });
  return pageOf(ctx, ids, request.page);
}
