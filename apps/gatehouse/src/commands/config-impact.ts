import { evaluateConfigImpact, impactDigest, unacceptedImpact } from "@gatehouse/rbac";
import { ENVIRONMENTS, type Environment } from "@gatehouse/role-config";
import { storeImpactData, UnknownOrganisationError, type ImpactData } from "@gatehouse/management-api";
import { openStore } from "@gatehouse/store";
import type { Command } from "commander";
import { loadAssetTypes } from "../migration/asset-types.js";
import { MigrationError } from "../migration/errors.js";
import { loadV1Export } from "../migration/v1-export-schema.js";
import { renderImpactMarkdown } from "./config-impact-report.js";
import { loadConfigSide, planImpactData, shown } from "./config-impact-sources.js";

interface ConfigImpactOptions {
  from: string;
  to: string;
  repo: string;
  configPath?: string;
  env: string;
  input?: string;
  databaseUrl?: string;
  dataDir?: string;
  domain: string;
  org?: string;
  json?: boolean;
  accept?: string[];
  examples: string;
  assetTypes?: string;
  platform: string;
}

/** Exit status when the change loses access or breaks parity that was not accepted (for CI). */
export const EXIT_IMPACT = 1;

/** `gatehouse config-impact`: who gains and who loses what when the role configuration changes. */
export function registerConfigImpact(program: Command): void {
  program
    .command("config-impact")
    .description("Show who gains and who loses which permission, in every organisation, when the role configuration changes; exit 1 on lost access or broken parity not accepted")
    .requiredOption("--from <dir|revision>", "the configuration now: a directory (configs/<env> or a checkout) or a git revision of --repo")
    .requiredOption("--to <dir|revision>", "the configuration proposed, the same way")
    .option("--repo <dir>", "the role-configuration git repository revisions are read from", ".")
    .option("--config-path <path>", "the configuration inside the repository (default: configs/<env>)")
    .option("--env <env>", "environment of the configuration (stage or prod)", "stage")
    .option("--input <file>", "a v1 export: evaluate its organisations as the migration plans them")
    .option("--database-url <url>", "evaluate this Postgres store's organisations (default: DATABASE_URL)")
    .option("--data-dir <dir>", "evaluate this embedded (PGlite) data directory's organisations")
    .option("--domain <domain>", "principal and tenant id domain of the store", "redhat")
    .option("--org <id>", "only this organisation")
    .option("--json", "print the impact as JSON instead of Markdown")
    .option("--accept <name...>", "accept lost access or broken parity of these permissions (v2 or v1 names), '*' for all, or the impact digest")
    .option("--examples <n>", "examples kept per permission and organisation", "5")
    .option("--asset-types <file>", "asset types JSON (default: the bundled asset types)")
    .option("--platform <id>", "rbac/platform id planned tenants point at", "stage")
    .action(async (opts: ConfigImpactOptions) => {
      if (!(ENVIRONMENTS as readonly string[]).includes(opts.env)) throw new MigrationError("invalid-options", `unknown environment '${opts.env}' (expected ${ENVIRONMENTS.join(" or ")})`);
      const examples = Number(opts.examples);
      if (!Number.isInteger(examples) || examples < 0 || examples > 1000) throw new MigrationError("invalid-options", "--examples must be an integer from 0 to 1000");
      const databaseUrl = opts.databaseUrl ?? (opts.dataDir || opts.input ? undefined : process.env.DATABASE_URL || undefined);
      const sources = [opts.input, databaseUrl, opts.dataDir].filter((s) => s !== undefined).length;
      if (sources !== 1) throw new MigrationError("invalid-options", "name the organisations to evaluate: one of --input, --database-url (or DATABASE_URL), --data-dir");
      const env = opts.env as Environment;
      const sideOptions = { repo: opts.repo, configPath: opts.configPath ?? `configs/${env}`, env };
      const from = await loadConfigSide(opts.from, sideOptions);
      const to = await loadConfigSide(opts.to, sideOptions);
      const catalog = await loadAssetTypes(opts.assetTypes);

      let data: ImpactData;
      if (opts.input) {
        const exp = await loadV1Export(opts.input);
        const narrowed = opts.org ? { ...exp, tenants: exp.tenants.filter((t) => t.org_id === opts.org) } : exp;
        if (opts.org && narrowed.tenants.length === 0) throw new MigrationError("invalid-options", `organisation '${shown(opts.org)}' is not in the v1 export '${opts.input}'`);
        data = planImpactData(narrowed, catalog, from.config, to.config, opts.platform);
      } else {
        const store = await openStore({ ...(databaseUrl ? { databaseUrl } : {}), ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), domain: opts.domain, migrations: "verify" });
        try {
          data = await storeImpactData(store, from.config, to.config, opts.domain, opts.org);
        } catch (err) {
          if (err instanceof UnknownOrganisationError) throw new MigrationError("invalid-options", err.message);
          throw err;
        } finally {
          await store.close();
        }
      }
      const { impact, rejected } = evaluateConfigImpact({ ...data, catalog, examples });
      const digest = impactDigest(impact);
      const accepted = opts.accept ?? [];
      const blocking = accepted.includes(digest) ? [] : unacceptedImpact(impact, accepted);
      if (opts.json) {
        process.stdout.write(
          `${JSON.stringify({ from: from.label, to: to.label, fromHash: from.config.identity.hash, toHash: to.config.identity.hash, source: data.source, digest, ok: blocking.length === 0, blocking: blocking.map((p) => p.v2Permission), rejectedRelationships: rejected, ...impact }, null, 2)}\n`,
        );
      } else {
        process.stdout.write(renderImpactMarkdown(impact, { from: from.label, to: to.label, digest, blocking }));
      }
      if (blocking.length > 0) process.exitCode = EXIT_IMPACT;
    });
}
