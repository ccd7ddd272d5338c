import { AuthzClientError } from "./errors.js";

/** Pattern 2's answer: the workspace ids a subject may access, ready to filter the app's own query. */
export interface WorkspaceFilter {
  readonly ids: readonly string[];
  /** The consistency token of the listing (pass it on as `atLeastAsFresh` to read no older data). */
  readonly consistencyToken: string | undefined;
  has(workspaceId: string): boolean;
  /**
   * A parameterised SQL predicate, e.g. `toSql("h.workspace_id", 3)` →
   * `{ text: "h.workspace_id = ANY($3)", values: [ids] }` (node-postgres binds the array).
   * No accessible workspace gives `FALSE`, so the query returns nothing rather than everything.
   */
  toSql(column: string, parameterIndex?: number): { text: string; values: unknown[] };
}

const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

export function workspaceFilter(ids: Iterable<string>, consistencyToken?: string): WorkspaceFilter {
  const unique = [...new Set(ids)];
  const set = new Set(unique);
  return {
    ids: unique,
    consistencyToken,
    has: (workspaceId) => set.has(workspaceId),
    toSql(column, parameterIndex = 1) {
      if (!COLUMN.test(column)) throw new AuthzClientError("invalid-argument", `'${column}' is not a plain column name.`);
      if (!Number.isInteger(parameterIndex) || parameterIndex < 1) throw new AuthzClientError("invalid-argument", "parameterIndex must be a positive integer.");
      if (unique.length === 0) return { text: "FALSE", values: [] };
      return { text: `${column} = ANY($${parameterIndex})`, values: [unique] };
    },
  };
}
