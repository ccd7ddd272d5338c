import { advisePattern, PATTERN_NAMES, RbacError, type AssetTypeFacts } from "@gatehouse/rbac";
import { type Command, InvalidArgumentError } from "commander";
import { MigrationError } from "../migration/errors.js";
import { readJsonFile } from "../migration/json-file.js";

function parseCount(value: string): number {
  const n = Number(value.replace(/[_,]/g, ""));
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("expected a non-negative number");
  return n;
}

function parseShare(value: string): number {
  const n = value.endsWith("%") ? Number(value.slice(0, -1)) / 100 : Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError("expected a share between 0 and 1 (or a percentage like 30%)");
  return n;
}

interface AdviseOptions {
  facts?: string;
  workspaceAware?: boolean;
  count?: number;
  share?: number;
  asset?: boolean;
  assetCentric?: boolean;
  hostRelated?: boolean;
  json?: boolean;
}

/** `gatehouse advise`: which pattern an asset type should use, and why. */
export function registerAdvise(program: Command): void {
  program
    .command("advise")
    .description("Advise the migration pattern (1-5) of an asset type from its facts")
    .option("--facts <file>", "JSON file with { workspaceAware, expectedCount, accessibleShare, isAsset, assetCentric, hostRelated }")
    .option("--workspace-aware", "the resource is already workspace-aware")
    .option("--count <n>", "results a list query can return", parseCount)
    .option("--share <x>", "share of results a user may access (0..1 or NN%)", parseShare)
    .option("--asset", "the customer manages it (create/read/update/delete); it could be placed in a workspace")
    .option("--asset-centric", "organization-wide operation that could become workspace- or host-level")
    .option("--host-related", "the asset is related to hosts")
    .option("--json", "print the advice as JSON")
    .action(async (opts: AdviseOptions) => {
      const fromFlags = opts.workspaceAware || opts.count !== undefined || opts.share !== undefined || opts.asset || opts.assetCentric || opts.hostRelated;
      if (opts.facts && fromFlags) throw new MigrationError("invalid-options", "use either --facts or the fact flags, not both");
      let facts: AssetTypeFacts;
      if (opts.facts) {
        facts = (await readJsonFile(opts.facts, "facts")) as AssetTypeFacts;
      } else {
        facts = {
          workspaceAware: opts.workspaceAware === true,
          isAsset: opts.asset === true,
          assetCentric: opts.assetCentric === true,
          hostRelated: opts.hostRelated === true,
          ...(opts.count !== undefined ? { expectedCount: opts.count } : {}),
          ...(opts.share !== undefined ? { accessibleShare: opts.share } : {}),
        };
      }
      let advice;
      try {
        advice = advisePattern(facts);
      } catch (err) {
        if (err instanceof RbacError) throw new MigrationError("invalid-facts", err.message);
        throw err;
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(advice, null, 2)}\n`);
        return;
      }
      const lines = [
        `Pattern ${advice.pattern} (${PATTERN_NAMES[advice.pattern]}): ${advice.reason}`,
        `  decision order: Pattern ${advice.decisionOrder.pattern}, ${advice.decisionOrder.reason}`,
        `  full tree:      Pattern ${advice.fullTree.pattern}, ${advice.fullTree.reason}`,
      ];
      if (advice.disagreement) lines.push(`  note: ${advice.disagreement}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
