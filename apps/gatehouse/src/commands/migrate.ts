import { openStore } from "@gatehouse/store";
import type { Command } from "commander";
import { applyTenantPlan, type TenantApplyResult } from "../migration/apply-to-store.js";
import { loadAssetTypes } from "../migration/asset-types.js";
import { planExport } from "../migration/plan.js";
import { createProgress, type Progress } from "../migration/progress.js";
import { renderTable } from "../migration/render.js";
import { loadV1Export } from "../migration/v1-export-schema.js";

/** Tenants with at least this many principals, memberships and bindings get a per-phase bar. */
const LARGE_TENANT = 2000;

interface MigrateOptions {
  input: string;
  databaseUrl?: string;
  dataDir?: string;
  dryRun?: boolean;
  assetTypes?: string;
  json?: boolean;
  seedSystemRoles?: boolean;
}

/** `gatehouse migrate`: v1 export → v2 roles, groups and bindings at the right levels. */
export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("Import a v1 export as v2 roles, groups and role bindings (idempotent)")
    .requiredOption("--input <file>", "v1 export JSON file")
    .option("--database-url <url>", "Postgres URL (default: embedded PGlite, see --data-dir)")
    .option("--data-dir <dir>", "PGlite data directory (default: in-memory)")
    .option("--asset-types <file>", "asset types JSON (default: the bundled asset types)")
    .option("--seed-system-roles", "first seed the export's system roles (created, or rewritten when their version is higher)")
    .option("--dry-run", "validate and print the plan without writing")
    .option("--json", "print the plan or the result as JSON")
    .action(async (opts: MigrateOptions) => {
      const exp = await loadV1Export(opts.input);
      const catalog = await loadAssetTypes(opts.assetTypes);
      const planned = planExport(exp, catalog);
      if (opts.dryRun) {
        const rows = planned.flatMap(({ plan }) =>
          plan.roles.filter((r) => r.source !== "platform").map((r) => [plan.orgId, r.name, r.source, r.level, String(r.permissions.length)]),
        );
        const warnings = planned.flatMap(({ plan }) => plan.warnings.map((w) => `${plan.orgId}: ${w}`));
        if (opts.json) process.stdout.write(`${JSON.stringify(planned.map(({ plan }) => ({ ...plan, bindingPlans: Object.fromEntries(plan.bindingPlans) })), null, 2)}\n`);
        else process.stdout.write(`${renderTable(["org", "v2 role", "source", "bound at", "permissions"], rows)}\n${warnings.map((w) => `warning: ${w}`).join("\n")}\n`);
        return;
      }
      const store = await openStore({
        ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
        ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
        ...(exp.domain ? { domain: exp.domain } : {}),
      });
      const results: TenantApplyResult[] = [];
      const progress = createProgress("migrate", planned.length);
      try {
        if (opts.seedSystemRoles) {
          const levels = new Map(planned.flatMap(({ plan }) => plan.roles.filter((r) => r.source === "system").map((r) => [r.v1Role, r.level] as const)));
          await store.roles.seedSystemRoles(
            exp.system_roles.map((r) => ({ ...r, access: r.access.map((a) => ({ permission: a.permission })), scope: levels.get(r.uuid ?? r.name) ?? "default" })),
          );
        }
        for (const [i, { tenant, plan }] of planned.entries()) {
          // One transaction per tenant; a large tenant also gets a bar of its own, phase by phase.
          const size = tenant.principals.length + plan.groups.reduce((n, g) => n + g.members.length, 0) + plan.bindings.length;
          let phaseBar: Progress | undefined;
          let phaseName = "";
          const onProgress =
            size >= LARGE_TENANT
              ? (phase: string, done: number, total: number) => {
                  if (phase !== phaseName) {
                    phaseBar?.stop();
                    phaseName = phase;
                    phaseBar = createProgress(`  org ${tenant.org_id} ${phase}`, total);
                  }
                  phaseBar!.update(done);
                }
              : undefined;
          try {
            results.push(await applyTenantPlan(store, exp, tenant, plan, onProgress));
          } finally {
            phaseBar?.stop();
          }
          progress.update(i + 1, `org ${tenant.org_id}`);
        }
      } finally {
        progress.stop();
        await store.close();
      }
      if (opts.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
      else {
        process.stdout.write(
          `${renderTable(
            ["org", "roles created", "roles updated", "groups created", "bindings", "grants added", "revision"],
            results.map((r) => [
              r.orgId,
              String(r.rolesCreated),
              String(r.rolesUpdated),
              String(r.groupsCreated),
              String(r.bindings),
              String(r.grantsAdded),
              r.revision === undefined ? "unchanged" : String(r.revision),
            ]),
          )}\n`,
        );
      }
    });
}
