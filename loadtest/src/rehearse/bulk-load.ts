// The data set's principals and hosts written straight into the store on the primary by
// `gatehouse import-hosts` (a process, as an import Job would run): one write transaction per batch,
// the same rows and placements as a request each, and one change-feed entry per batch, which the
// running engines follow and checkpoint like any other write.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { BulkData } from "../generate.ts";
import { REPO_ROOT } from "../server.ts";
import { type ProcessRegistry, runToEnd } from "./processes.ts";

export interface BulkLoadOptions {
  registry: ProcessRegistry;
  dir: string;
  databaseUrl: string;
  orgId: string;
  fromSource: boolean;
  env: NodeJS.ProcessEnv;
}

/** The CSV lines `gatehouse import-hosts` reads. */
export function bulkCsv(header: string, rows: [string, string][]): string {
  return `${header}\n${rows.map((r) => r.join(",")).join("\n")}\n`;
}

export function bulkLoader(o: BulkLoadOptions): (data: BulkData) => Promise<void> {
  let runs = 0;
  return async (data) => {
    runs += 1;
    const hosts = path.join(o.dir, `bulk-hosts-${runs}.csv`);
    const users = path.join(o.dir, `bulk-users-${runs}.csv`);
    writeFileSync(
      hosts,
      bulkCsv(
        "host_id,workspace_id",
        data.hosts.map((h) => [h.id, h.workspaceId]),
      ),
    );
    writeFileSync(
      users,
      bulkCsv(
        "user_id,username",
        data.principals.map((p) => [p.userId, p.username]),
      ),
    );
    const cli = o.fromSource ? ["--conditions=source", "--import", "tsx", path.join("apps", "gatehouse", "src", "main.ts")] : [path.join("apps", "gatehouse", "dist", "main.js")];
    const args = [...cli, "import-hosts", "--org-id", o.orgId, "--database-url", o.databaseUrl, "--input", hosts, ...(data.principals.length > 0 ? ["--principals", users] : [])];
    await runToEnd(o.registry, { name: `bulk-load-${runs}`, command: process.execPath, args, cwd: REPO_ROOT, env: o.env, logFile: path.join(o.dir, `bulk-load-${runs}.log`) });
  };
}
