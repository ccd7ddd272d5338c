import { openStore } from "@gatehouse/store";
import type { Command } from "commander";
import { applyTenantPlan, type TenantApplyResult } from "../migration/apply-to-store.js";
import { loadAssetTypes } from "../migration/asset-types.js";
import { planExport } from "../migration/plan.js";
import { createProgress, type Progress } from "../migration/progress.js";
import { renderTable } from "../migration/render.js";
import { readV1Api } from "../migration/v1-api.js";
import { loadV1Export, validateV1Export } from "../migration/v1-export-schema.js";
import { MigrationError } from "../migration/errors.js";
import type { PlannedRole, V1Export } from "@gatehouse/rbac";

/** Tenants with at least this many principals, memberships and bindings get a per-phase bar. */
const LARGE_TENANT = 2000;

interface MigrateOptions {
  input?: string;
  fromUrl?: string;
  token?: string;
  identity?: string;
  orgId?: string;
  pageSize?: string;
  retries?: string;
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
    .option("--input <file>", "v1 export JSON file")
    .option("--from-url <url>", "read the organisation from a live insights-rbac v1 API instead (https://host or .../api/rbac/v1)")
    .option("--token <token>", "with --from-url: bearer token (default: $GATEHOUSE_SOURCE_TOKEN)")
    .option("--identity <base64>", "with --from-url: x-rh-identity header (default: $GATEHOUSE_SOURCE_IDENTITY)")
    .option("--org-id <id>", "with --from-url: organisation to read (default: the identity's org_id)")
    .option("--page-size <n>", "with --from-url: items per page", "100")
    .option("--retries <n>", "with --from-url: retries per request (exponential backoff)", "4")
    .option("--database-url <url>", "Postgres URL (default: embedded PGlite, see --data-dir)")
    .option("--data-dir <dir>", "PGlite data directory (default: in-memory)")
    .option("--asset-types <file>", "asset types JSON (default: the bundled asset types)")
    .option("--seed-system-roles", "first seed the export's system roles (created, or rewritten when their version is higher)")
    .option("--dry-run", "validate and print the plan without writing")
    .option("--json", "print the plan or the result as JSON")
    .action(async (opts: MigrateOptions) => {
      const exp = await loadExport(opts);
      const catalog = await loadAssetTypes(opts.assetTypes);
      const planned = planExport(exp, catalog);
      if (opts.dryRun) {
        const rows = planned.flatMap(({ plan }) => plan.roles.filter((r) => r.source !== "platform").map((r) => [plan.orgId, r.name, r.source, boundAt(r), String(r.permissions.length)]));
        const warnings = planned.flatMap(({ plan }) => plan.warnings.map((w) => `${plan.orgId}: ${w}`));
        if (opts.json)
          process.stdout.write(
            `${JSON.stringify(
              planned.map(({ plan }) => ({ ...plan, bindingPlans: Object.fromEntries(plan.bindingPlans) })),
              null,
              2,
            )}\n`,
          );
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
          await store.roles.seedSystemRoles(exp.system_roles.map((r) => ({ ...r, access: r.access.map((a) => ({ permission: a.permission })), scope: levels.get(r.uuid ?? r.name) ?? "default" })));
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
        for (const r of results) for (const w of r.warnings) process.stderr.write(`warning: ${r.orgId}: ${w}\n`);
      }
    });
}

/**
 * Where the import binds a planned role: its level, or for a role limited to inventory workspaces
 * its targets (levels, how many workspaces, the ungrouped hosts) and its unlimited part's levels.
 */
export function boundAt(role: PlannedRole): string {
  const t = role.targets;
  if (!t) return role.level;
  const on = [...t.levels, ...(t.workspaceIds.length > 0 ? [`${t.workspaceIds.length} workspace(s)`] : []), ...(t.ungrouped ? ["ungrouped hosts"] : [])];
  const part = t.unlimited ? `; unlimited part at ${t.unlimited.levels.join(", ")}` : "";
  return `${on.join(", ") || "nothing"}${part}`;
}

function positiveInt(raw: string | undefined, flag: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new MigrationError("invalid-options", `${flag} must be an integer >= ${min}`);
  return n;
}

/** The export from a file, or read from a live v1 API; validated the same way either way. */
async function loadExport(opts: MigrateOptions): Promise<V1Export> {
  if ((opts.input === undefined) === (opts.fromUrl === undefined)) throw new MigrationError("invalid-options", "give exactly one of --input and --from-url");
  if (opts.input !== undefined) return loadV1Export(opts.input);
  const token = opts.token ?? process.env["GATEHOUSE_SOURCE_TOKEN"];
  const identity = opts.identity ?? process.env["GATEHOUSE_SOURCE_IDENTITY"];
  const read = await readV1Api({
    baseUrl: opts.fromUrl!,
    ...(token ? { token } : {}),
    ...(identity ? { identity } : {}),
    ...(opts.orgId ? { orgId: opts.orgId } : {}),
    pageSize: positiveInt(opts.pageSize, "--page-size", 1),
    retries: positiveInt(opts.retries, "--retries", 0),
  });
  process.stderr.write(`read ${opts.fromUrl} in ${read.requests} requests\n`);
  return validateV1Export(read.export, `v1 API at ${opts.fromUrl}`);
}
