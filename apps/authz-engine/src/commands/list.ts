import { type IdsInOrder, lookupResourceIds, lookupSubjects, SortedIdList } from "@gatehouse/evaluator";
import type { EngineContext } from "./context.js";
import { currentToken, ensureConsistency } from "./consistency.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import type { ConsistencyRequirement, ObjectRef, SubjectRef } from "./types.js";

export interface PageRequest {
  limit?: number;
  continuationToken?: string;
}

/**
 * One page as a window over the (cached, shared) result: nothing is copied or encoded up front,
 * and a large result is put in order only as far as pages are read (the evaluator's
 * `IdsInOrder`), so the first item can be sent as soon as it is known, before the rest of the
 * answer is ordered or even decoded. Each item's cursor ("resume after this id") is encoded when
 * it is sent, by `cursorAt`.
 */
export interface ListPage {
  ids: IdsInOrder;
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

function pageOf(ctx: EngineContext, sortedIds: IdsInOrder, page: PageRequest): ListPage {
  const limit = Math.min(page.limit ?? ctx.listDefaultLimit, ctx.listMaxLimit);
  const start = page.continuationToken ? sortedIds.firstIndexAfter(decodeCursor(page.continuationToken)) : 0;
  return { ids: sortedIds, start, end: Math.min(sortedIds.length, start + limit), token: currentToken(ctx) };
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
  const graph = ctx.graph.graph;
  const ids = ctx.lookupCache.getOrCompute(graph, ctx.graph.appliedRevision, key, () => lookupResourceIds(graph, request.objectType, request.permission, request.subject, { now: ctx.now() }));
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
  const ids = ctx.lookupCache.getOrCompute(ctx.graph.graph, ctx.graph.appliedRevision, key, () => {
    const found = lookupSubjects(ctx.graph.graph, request.resource, request.permission, request.subjectType, request.subjectRelation, { now: ctx.now() });
    const all = found.wildcard ? [...found.ids, "*"] : [...found.ids];
    return new SortedIdList(all.sort());
  });
  return pageOf(ctx, ids, request.page);
}
