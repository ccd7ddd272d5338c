import { writeFile } from "node:fs/promises";
import { openStore } from "@gatehouse/store";
import type { Command } from "commander";
import { loadAssetTypes } from "../migration/asset-types.js";
import { MigrationError } from "../migration/errors.js";
import { loadGraph, planTuples, runParity } from "../migration/parity-run.js";
import { loadStoreParityState } from "../migration/parity-store.js";
import { planExport } from "../migration/plan.js";
import { createProgress } from "../migration/progress.js";
import { parityVerdict, renderParityReport } from "../migration/render.js";
import { loadSchemaModel } from "../migration/schema-source.js";
import { loadV1Export } from "../migration/v1-export-schema.js";

interface ParityOptions {
  input: string;
  json?: string;
  schema?: string;
  configDir?: string;
  acceptUnverified?: boolean;
  env: string;
  assetTypes?: string;
  platform: string;
  databaseUrl?: string;
  dataDir?: string;
  fromStore?: boolean;
  fromPlan?: boolean;
}

/** `gatehouse parity`: every v1 grant must still be granted by v2 where the app checks it. */
export function registerParity(program: Command): void {
  program
    .command("parity")
    .description("Compare v1 grants of a v1 export with v2 checks of its migration; exit 1 if any v1 grant is lost or could not be verified")
    .requiredOption("--input <file>", "v1 export JSON file")
    .option("--json <file>", "also write the full report as JSON to this file ('-' for stdout)")
    .option("--schema <file>", "zed schema to evaluate with (default: Gatehouse's own schema of --env)")
    .option("--config-dir <dir>", "evaluate with this role-configuration directory's schema (configs/<env> of an rbac-config checkout; default: GATEHOUSE_ROLE_CONFIG when set)")
    .option("--env <env>", "role configuration environment (stage or prod)", "stage")
    .option("--accept-unverified", "exit 0 even when held v1 grants could not be verified (the schema does not model their application)")
    .option("--asset-types <file>", "asset types JSON (default: the bundled asset types)")
    .option("--database-url <url>", "evaluate the store's state in this Postgres database (implies --from-store)")
    .option("--data-dir <dir>", "evaluate the store's state in this PGlite data directory (implies --from-store)")
    .option("--from-store", "evaluate what the store holds (default when --database-url or --data-dir is given)")
    .option("--from-plan", "evaluate the planned migration, not the store")
    .option("--platform <id>", "rbac/platform id tenants point at (planned mode)", "stage")
    .action(async (opts: ParityOptions) => {
      const hasStore = opts.databaseUrl !== undefined || opts.dataDir !== undefined;
      if (opts.fromStore && opts.fromPlan) throw new MigrationError("invalid-options", "--from-store and --from-plan exclude each other");
      if (opts.fromStore && !hasStore) throw new MigrationError("invalid-options", "--from-store needs --database-url or --data-dir");
      const fromStore = !opts.fromPlan && hasStore;

      const exp = await loadV1Export(opts.input);
      const catalog = await loadAssetTypes(opts.assetTypes);
      const configDir = opts.configDir ?? (opts.schema ? undefined : process.env.GATEHOUSE_ROLE_CONFIG || undefined);
      const model = await loadSchemaModel(opts.schema, opts.env, configDir);
      const warnings: string[] = [];
      let source: Record<string, unknown>;
      let input: { tenants: Parameters<typeof runParity>[0]["planned"]; tuples: Parameters<typeof loadGraph>[1] };
      if (fromStore) {
        const store = await openStore({
          ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
          ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
          ...(exp.domain ? { domain: exp.domain } : {}),
        });
        try {
          const state = await loadStoreParityState(store, exp, catalog);
          warnings.push(...state.warnings);
          input = { tenants: state.tenants, tuples: state.relationships };
          source = { kind: "store", revisions: state.revisions };
        } finally {
          await store.close();
        }
      } else {
        const planned = planExport(exp, catalog);
        input = { tenants: planned, tuples: planTuples(planned, opts.platform) };
        source = { kind: "plan" };
      }
      for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
      const { graph, rejected } = loadGraph(model, input.tuples);
      for (const r of rejected) process.stderr.write(`warning: tuple not loaded: ${r.error}\n`);
      const total = exp.tenants.reduce((n, t) => n + t.principals.length, 0);
      const progress = createProgress("parity", total);
      const report = runParity({ export: exp, catalog, planned: input.tenants, graph, relationships: input.tuples, onPrincipal: (d) => progress.update(d) });
      progress.stop();
      const verdict = parityVerdict(report, opts.acceptUnverified === true);
      const json = `${JSON.stringify({ ...report, verified: report.summary.grantsUnverified === 0, source, warnings, rejectedTuples: rejected }, null, 2)}\n`;
      if (opts.json === "-") process.stdout.write(json);
      else {
        process.stdout.write(`${renderParityReport(report, verdict)}\n`);
        if (opts.json) await writeFile(opts.json, json);
      }
      if (verdict.advice) process.stderr.write(`${verdict.advice}\n`);
      if (!verdict.ok) process.exitCode = 1;
    });
}
