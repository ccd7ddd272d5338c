/** The application's own data: hosts record their workspace (as inventory groups do); saved views do not. */
export interface Host {
  id: string;
  orgId: string;
  name: string;
  workspaceId: string;
}

/** A non-workspace asset of the organisation (Pattern 3: implicitly in the Default Workspace). */
export interface SavedView {
  id: string;
  orgId: string;
  name: string;
  query: string;
}

/** What the inventory needs of a database: `pg.Pool` and PGlite both fit. */
export interface SqlClient {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

export interface HostPage {
  /** Hosts matching the filter, all pages together. */
  count: number;
  data: Host[];
}

const TABLE_NAME = /^(?:[a-z_][a-z0-9_]*\.)?[a-z_][a-z0-9_]*$/;

/**
 * The hosts live in SQL (Postgres or PGlite): `org_id, id, workspace_id, name`. The Pattern 2 list is
 * one query filtered by the workspace ids the engine listed, in the caller's organisation, paged by id.
 * The table's name is configurable so the app can serve the load test's generated `loadtest.lt_hosts`.
 */
export class Inventory {
  private readonly views = new Map<string, SavedView>();
  private readonly table: string;

  constructor(
    private readonly db: SqlClient,
    options: { table?: string } = {},
  ) {
    this.table = options.table ?? "inventory_hosts";
    if (!TABLE_NAME.test(this.table)) throw new Error(`Invalid host table name '${this.table}' (expected [schema.]name in lower case).`);
  }

  /** Creates the table and its list index when missing (a no-op on an existing table). */
  async migrate(): Promise<void> {
    const schema = this.table.includes(".") ? this.table.split(".")[0] : null;
    if (schema) await this.db.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await this.db.query(`CREATE TABLE IF NOT EXISTS ${this.table} (org_id text NOT NULL, id text NOT NULL, workspace_id uuid NOT NULL, name text NOT NULL, PRIMARY KEY (org_id, id))`);
    await this.db.query(`CREATE INDEX IF NOT EXISTS ${this.table.replace(".", "_")}_list_idx ON ${this.table} (org_id, workspace_id, id)`);
  }

  /** Inserts or renames/moves hosts in one statement (all or nothing). */
  async addHosts(hosts: readonly Host[]): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.table} (org_id, id, workspace_id, name)
       SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::text[])
       ON CONFLICT (org_id, id) DO UPDATE SET workspace_id = excluded.workspace_id, name = excluded.name`,
      [hosts.map((h) => h.orgId), hosts.map((h) => h.id), hosts.map((h) => h.workspaceId), hosts.map((h) => h.name)],
    );
  }

  async host(orgId: string, id: string): Promise<Host | undefined> {
    const { rows } = await this.db.query<Row>(`SELECT org_id, id, workspace_id::text, name FROM ${this.table} WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return rows[0] ? toHost(rows[0]) : undefined;
  }

  /** One page of the organisation's hosts in the given workspaces ("all": development mode without authorization). */
  async hostsIn(orgId: string, workspaceIds: readonly string[] | "all", page: { limit: number; offset: number }): Promise<HostPage> {
    if (workspaceIds !== "all" && workspaceIds.length === 0) return { count: 0, data: [] };
    const where = workspaceIds === "all" ? "org_id = $1" : "org_id = $1 AND workspace_id = ANY($2::uuid[])";
    const params: unknown[] = workspaceIds === "all" ? [orgId] : [orgId, workspaceIds];
    const n = params.length;
    const [count, rows] = await Promise.all([
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE ${where}`, params),
      this.db.query<Row>(`SELECT org_id, id, workspace_id::text, name FROM ${this.table} WHERE ${where} ORDER BY id LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, page.limit, page.offset]),
    ]);
    return { count: count.rows[0]?.n ?? 0, data: rows.rows.map(toHost) };
  }

  addSavedView(view: SavedView): void {
    this.views.set(view.id, view);
  }
  savedViews(orgId: string): SavedView[] {
    return [...this.views.values()].filter((v) => v.orgId === orgId);
  }
}

interface Row {
  org_id: string;
  id: string;
  workspace_id: string;
  name: string;
}

const toHost = (row: Row): Host => ({ id: row.id, orgId: row.org_id, name: row.name, workspaceId: row.workspace_id });
