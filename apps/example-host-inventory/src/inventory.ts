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

/** In-process tables standing in for the application's database. */
export class Inventory {
  private readonly hosts = new Map<string, Host>();
  private readonly views = new Map<string, SavedView>();

  addHost(host: Host): void {
    this.hosts.set(host.id, host);
  }
  addSavedView(view: SavedView): void {
    this.views.set(view.id, view);
  }
  host(orgId: string, id: string): Host | undefined {
    const host = this.hosts.get(id);
    return host?.orgId === orgId ? host : undefined;
  }
  /** The SQL equivalent is `WHERE org_id = $1 AND workspace_id = ANY($2)` (see WorkspaceFilter.toSql). */
  hostsIn(orgId: string, workspaceIds: ReadonlySet<string> | "all"): Host[] {
    return [...this.hosts.values()].filter((h) => h.orgId === orgId && (workspaceIds === "all" || workspaceIds.has(h.workspaceId))).sort((a, b) => a.name.localeCompare(b.name));
  }
  savedViews(orgId: string): SavedView[] {
    return [...this.views.values()].filter((v) => v.orgId === orgId);
  }
}
