import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { loadAssetTypes } from "../migration/asset-types.js";
import { loadGraph, planTuples, runParity } from "../migration/parity-run.js";
import { planExport } from "../migration/plan.js";
import { createProgress } from "../migration/progress.js";
import { renderParityReport } from "../migration/render.js";
import { loadSchemaText } from "../migration/schema-source.js";
import { loadV1Export } from "../migration/v1-export-schema.js";

interface ParityOptions {
  input: string;
  json?: string;
  schema?: string;
  env: string;
  assetTypes?: string;
  platform: string;
}

/** `gatehouse parity`: every v1 grant must still be granted by v2 where the app checks it. */
export function registerParity(program: Command): void {
  program
    .command("parity")
    .description("Compare v1 grants of a v1 export with v2 checks of its migration; exit 1 if any v1 grant is lost")
    .requiredOption("--input <file>", "v1 export JSON file")
    .option("--json <file>", "also write the full report as JSON to this file ('-' for stdout)")
    .option("--schema <file>", "zed schema to evaluate with (default: the role configuration's schema)")
    .option("--env <env>", "role configuration environment", "stage")
    .option("--asset-types <file>", "asset types JSON (default: the bundled asset types)")
    .option("--platform <id>", "rbac/platform id tenants point at", "stage")
    .action(async (opts: ParityOptions) => {
      const exp = await loadV1Export(opts.input);
      const catalog = await loadAssetTypes(opts.assetTypes);
      const schemaText = await loadSchemaText(opts.schema, opts.env);
      const planned = planExport(exp, catalog);
      const tuples = planTuples(planned, opts.platform);
      const { graph, rejected } = loadGraph(schemaText, tuples);
      for (const r of rejected) process.stderr.write(`warning: tuple not loaded: ${r.error}\n`);
      const total = exp.tenants.reduce((n, t) => n + t.principals.length, 0);
      const progress = createProgress("parity", total);
      const report = runParity({ export: exp, catalog, planned, graph, relationships: tuples, onPrincipal: (d) => progress.update(d) });
      progress.stop();
      const json = `${JSON.stringify({ ...report, rejectedTuples: rejected }, null, 2)}\n`;
      if (opts.json === "-") process.stdout.write(json);
      else {
        process.stdout.write(`${renderParityReport(report)}\n`);
        if (opts.json) await writeFile(opts.json, json);
      }
      if (!report.ok) process.exitCode = 1;
    });
}
