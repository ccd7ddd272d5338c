// Raw tuple access: the engine's ReportResource/DeleteResource of non-host types and imports.
import type { StoreContext } from "../context.js";
import { StoreError } from "../errors.js";
import { relationshipProblem } from "../relationships.js";
import type { Relationship, RelationshipRepository } from "../types.js";
import { requireOrgId } from "../validate.js";
import { EXPIRES_MS, requireTenantRow, rowToRelationship, runWrite } from "../write.js";

const MAX_TUPLES_PER_WRITE = 100_000;

function requireRelationships(list: unknown, field: string): Relationship[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new StoreError("invalid-argument", `${field} must be an array.`, field);
  list.forEach((r: Relationship, i) => {
    const problem = typeof r === "object" && r !== null ? relationshipProblem(r) : "not an object";
    if (problem) throw new StoreError("invalid-argument", `${field}[${i}]: ${problem}`, field);
  });
  return list as Relationship[];
}

const filterColumns: [keyof Relationship, string][] = [
  ["resourceType", "resource_type"],
  ["resourceId", "resource_id"],
  ["relation", "relation"],
  ["subjectType", "subject_type"],
  ["subjectId", "subject_id"],
  ["subjectRelation", "subject_relation"],
];

export function relationshipRepository(ctx: StoreContext): RelationshipRepository {
  return {
    async write(orgId, write) {
      requireOrgId(orgId);
      const touch = requireRelationships(write?.touch, "touch");
      const del = requireRelationships(write?.delete, "delete");
      if (touch.length + del.length === 0) throw new StoreError("invalid-argument", "Nothing to write.", "touch");
      if (touch.length + del.length > MAX_TUPLES_PER_WRITE) throw new StoreError("invalid-argument", `At most ${MAX_TUPLES_PER_WRITE} tuples per write.`, "touch");
      return runWrite(ctx, orgId, "write_relationships", async (w) => {
        await requireTenantRow(w.tx, orgId);
        await w.remove(del);
        await w.touch(touch);
        const { touched, deleted } = w.changes;
        return { touched: touched.length, deleted: deleted.length };
      });
    },

    async read(orgId, filter = {}) {
      requireOrgId(orgId);
      const params: unknown[] = [orgId];
      const where = [filter.includePublic ? "(org_id = $1 OR org_id = '')" : "org_id = $1"];
      for (const [key, column] of filterColumns) {
        const value = filter[key];
        if (value === undefined) continue;
        params.push(value);
        where.push(`${column} = $${params.length}`);
      }
      const rows = await ctx.db.query<Parameters<typeof rowToRelationship>[0] & Record<string, unknown>>(
        `SELECT resource_type, resource_id, relation, subject_type, subject_id, subject_relation, ${EXPIRES_MS} FROM gh_tuples WHERE ${where.join(" AND ")}
         ORDER BY resource_type, resource_id, relation, subject_type, subject_id, subject_relation`,
        params,
      );
      return rows.map(rowToRelationship);
    },
  };
}
