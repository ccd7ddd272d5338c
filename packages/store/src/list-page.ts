// One page of a list endpoint and the list's total. A whole list (no limit, no offset) is its own
// total: one statement instead of a count and a read (the parity report reads whole lists).
import type { Queryable, Row } from "./db/db.js";

export async function listPage<R extends Row>(
  db: Queryable,
  from: string,
  filter: string,
  params: unknown[],
  orderBy: string,
  page: { limit: number | null; offset: number },
  columns = "*",
): Promise<{ rows: R[]; count: number }> {
  const rows = await db.query<R>(`SELECT ${columns} FROM ${from} WHERE ${filter} ORDER BY ${orderBy} LIMIT ${page.limit ?? "ALL"} OFFSET ${page.offset}`, params);
  if (page.limit === null && page.offset === 0) return { rows, count: rows.length };
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from} WHERE ${filter}`, params);
  return { rows, count: count?.n ?? 0 };
}
