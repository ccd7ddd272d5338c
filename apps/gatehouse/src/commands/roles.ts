import type { Command } from "commander";
import { loadRoleConfiguration } from "@gatehouse/management-api";
import { formatIssue, RoleConfigError } from "@gatehouse/role-config";
import { openStore } from "@gatehouse/store";

interface SeedFlags {
  configDir: string;
  databaseUrl?: string;
  dataDir?: string;
  json?: boolean;
}

/** `gatehouse roles seed`: seeds a role-configuration directory's roles into a store, as the management API does at start. */
export function registerRolesCommand(program: Command): void {
  const roles = program.command("roles").description("Seeded (system) roles of a role configuration");
  roles
    .command("seed")
    .description("Seed the directory's roles in one transaction: create missing ones, rewrite those whose version rose, leave the rest (never custom roles)")
    .requiredOption("--config-dir <dir>", "a role-configuration directory (configs/<env> of an rbac-config checkout)")
    .option("--database-url <url>", "Postgres URL (default: embedded PGlite, see --data-dir)")
    .option("--data-dir <dir>", "PGlite data directory (default: in-memory)")
    .option("--json", "print the report as JSON")
    .action(async (flags: SeedFlags) => {
      let configuration;
      try {
        configuration = await loadRoleConfiguration("stage", flags.configDir);
      } catch (e) {
        if (!(e instanceof RoleConfigError)) throw e;
        for (const issue of e.issues) process.stderr.write(`${formatIssue(issue)}\n`);
        process.exitCode = 1;
        return;
      }
      const store = await openStore({ ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}), ...(flags.dataDir ? { dataDir: flags.dataDir } : {}) });
      try {
        const { value, revision } = await store.roles.seedSystemRoles(configuration.systemRoles, {
          onProgress: (done, total, name, action) => process.stderr.write(`[${done}/${total}] ${name}: ${action}\n`),
        });
        const { roles: _roles, ...report } = value;
        if (flags.json) process.stdout.write(`${JSON.stringify({ ...report, revision }, null, 2)}\n`);
        else {
          process.stdout.write(
            `${report.created.length} created, ${report.updated.length} updated, ${report.unchanged.length} unchanged` +
              `${report.unconfigured.length > 0 ? `, ${report.unconfigured.length} no longer configured (kept)` : ""}; ` +
              `${report.changed ? `revision ${revision}` : "nothing written"}\n`,
          );
          for (const u of report.updated) process.stdout.write(`  updated ${u.name}: version ${u.from} -> ${u.to}\n`);
        }
      } finally {
        await store.close();
      }
    });
}
