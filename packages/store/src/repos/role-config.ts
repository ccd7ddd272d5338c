// The active role configuration (written by a reload together with its role seeding) and the
// question a reload asks before removing schema elements: does any stored relationship use them?
import type { StoreContext } from "../context.js";
import type { ActiveRoleConfig, RoleConfigRepository, SchemaElement } from "../types.js";

interface ActiveRow {
  hash: string;
  dir: string;
  loaded_at: Date | string;
  schema_zed: string;
  [k: string]: unknown;
}

/** One EXISTS query per element: removals are few, and a reload is rare. */
function usageQuery(e: SchemaElement): { sql: string; params: string[] } {
  switch (e.kind) {
    case "type":
      return { sql: "SELECT 1 FROM gh_tuples WHERE resource_type = $1 OR subject_type = $1 LIMIT 1", params: [e.type] };
    case "relation":
      return { sql: "SELECT 1 FROM gh_tuples WHERE resource_type = $1 AND relation = $2 LIMIT 1", params: [e.type, e.name] };
    case "permission":
      return { sql: "SELECT 1 FROM gh_tuples WHERE subject_type = $1 AND subject_relation = $2 LIMIT 1", params: [e.type, e.name] };
  }
}

export function roleConfigRepository(ctx: StoreContext): RoleConfigRepository {
  return {
    async active(): Promise<ActiveRoleConfig | undefined> {
      const [row] = await ctx.db.query<ActiveRow>("SELECT hash, dir, loaded_at, schema_zed FROM gh_role_config");
      return row ? { hash: row.hash, dir: row.dir, loadedAt: new Date(row.loaded_at), schemaZed: row.schema_zed } : undefined;
    },

    async inUse(elements) {
      const used: SchemaElement[] = [];
      for (const e of elements) {
        const { sql, params } = usageQuery(e);
        if ((await ctx.db.query(sql, params)).length > 0) used.push(e);
      }
      return used;
    },
  };
}
