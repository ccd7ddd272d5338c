import { readFileSync } from "node:fs";
import { openStore, type HostReport, type PrincipalInput } from "@gatehouse/store";
import type { Command } from "commander";
import { MigrationError } from "../migration/errors.js";

interface ImportHostsOptions {
  orgId: string;
  input: string;
  principals?: string;
  batch: string;
  databaseUrl?: string;
  dataDir?: string;
  domain?: string;
  json?: boolean;
}

/** Rows of a two-column CSV file (no quoting: ids and names hold no commas); a header line is skipped. */
export function readPairs(file: string, header: [string, string]): [string, string][] {
  const out: [string, string][] = [];
  const lines = readFileSync(file, "utf8").split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === "" || (i === 0 && line.trim() === header.join(","))) return;
    const cells = line.split(",").map((c) => c.trim());
    if (cells.length !== 2 || !cells[0] || !cells[1]) throw new MigrationError("invalid-input", `${file}:${i + 1}: expected "${header.join(",")}", got "${line.slice(0, 200)}"`);
    out.push([cells[0], cells[1]]);
  });
  return out;
}

/**
 * `gatehouse import-hosts`: an inventory's hosts written straight into the store, as many per write
 * transaction as `--batch` (the same rows and placements as one ReportResource each, one change-feed
 * entry per batch, which running engines follow); `--principals` first records the organisation's
 * users as their first request would. Idempotent: hosts already in place write nothing.
 */
export function registerImportHosts(program: Command): void {
  program
    .command("import-hosts")
    .description("Bulk-load an organisation's hosts (and optionally its users) into the store")
    .requiredOption("--org-id <id>", "the organisation (its tenant is bootstrapped when missing)")
    .requiredOption("--input <file>", "CSV of host_id,workspace_id (the workspaces must exist in the organisation)")
    .option("--principals <file>", "CSV of user_id,username, recorded first (type user, not org admin)")
    .option("--batch <n>", "hosts per write transaction", "10000")
    .option("--database-url <url>", "Postgres URL (default: embedded PGlite, see --data-dir)")
    .option("--data-dir <dir>", "PGlite data directory")
    .option("--domain <domain>", "the store's principal domain (as GATEHOUSE_DOMAIN)")
    .option("--json", "print the counts as JSON")
    .action(async (opts: ImportHostsOptions) => {
      const batch = Number(opts.batch);
      if (!Number.isInteger(batch) || batch < 1) throw new MigrationError("invalid-options", `--batch must be a positive integer, not '${opts.batch}'`);
      const hosts: HostReport[] = readPairs(opts.input, ["host_id", "workspace_id"]).map(([id, workspaceId]) => ({ id, workspaceId }));
      const principals: PrincipalInput[] = opts.principals
        ? readPairs(opts.principals, ["user_id", "username"]).map(([userId, username]) => ({ userId, username, type: "user", isOrgAdmin: false }))
        : [];
      const store = await openStore({
        ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
        ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
        ...(opts.domain ? { domain: opts.domain } : {}),
      });
      try {
        await store.tenants.bootstrap(opts.orgId);
        const counts = { principals: 0, created: 0, moved: 0, unchanged: 0, revision: await store.feed.headRevision() };
        for (let i = 0; i < principals.length; i += batch) {
          const written = await store.principals.upsert(opts.orgId, principals.slice(i, i + batch));
          counts.principals += written.value.length;
          counts.revision = written.revision;
        }
        for (let i = 0; i < hosts.length; i += batch) {
          const written = await store.hosts.reportMany(opts.orgId, hosts.slice(i, i + batch));
          counts.created += written.value.created;
          counts.moved += written.value.moved;
          counts.unchanged += written.value.unchanged;
          counts.revision = written.revision;
        }
        process.stdout.write(
          opts.json
            ? `${JSON.stringify(counts)}\n`
            : `${counts.principals} principals recorded; hosts: ${counts.created} created, ${counts.moved} moved, ${counts.unchanged} unchanged; revision ${counts.revision}\n`,
        );
      } finally {
        await store.close();
      }
    });
}
