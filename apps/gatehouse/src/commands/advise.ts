import { advisePattern, defaultAssetTypes, PATTERN_NAMES, parseAssetTypes, RbacError, type AssetTypeCatalog, type AssetTypeFacts, type PatternAdvice } from "@gatehouse/rbac";
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
  assetType?: string;
  workspaceAware?: boolean;
  count?: number;
  share?: number;
  asset?: boolean;
  assetCentric?: boolean;
  hostRelated?: boolean;
  json?: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The facts of one asset type, by name, from a catalogue; an unknown name lists the known ones. */
function factsOf(catalog: AssetTypeCatalog, name: string): AssetTypeFacts {
  const found = catalog.assetTypes.get(name);
  if (found) return found.facts;
  const known = [...catalog.assetTypes.keys()];
  const app = name.split(":")[0] ?? "";
  const near = known.filter((k) => k.startsWith(`${app}:`));
  const shown = (near.length > 0 ? near : known).slice(0, 20);
  throw new MigrationError("invalid-options", `unknown asset type '${name.slice(0, 80)}' (known: ${shown.join(", ")}${shown.length < known.length ? ", ..." : ""})`);
}

function parseCatalog(doc: unknown, file: string): AssetTypeCatalog {
  try {
    return parseAssetTypes(doc);
  } catch (err) {
    if (err instanceof RbacError) throw new MigrationError("invalid-facts", `asset types '${file}': ${err.message}`);
    throw err;
  }
}

/**
 * What `--facts` holds: bare facts, one asset type's entry (`{ facts, ... }`), or a whole asset-type
 * catalogue (`{ version: 1, assetTypes }`, as shipped), from which `--asset-type` picks one.
 */
async function factsFromFile(file: string, assetType: string | undefined): Promise<{ name?: string; facts: AssetTypeFacts }[]> {
  const doc = await readJsonFile(file, "facts");
  if (isRecord(doc) && isRecord(doc.assetTypes)) {
    const catalog = parseCatalog(doc, file);
    if (assetType) return [{ name: assetType, facts: factsOf(catalog, assetType) }];
    return [...catalog.assetTypes.values()].map((t) => ({ name: t.key, facts: t.facts }));
  }
  if (assetType) throw new MigrationError("invalid-options", "--asset-type picks from an asset-type catalogue; this --facts file holds the facts of one asset type");
  if (isRecord(doc) && isRecord(doc.facts)) return [{ facts: doc.facts as unknown as AssetTypeFacts }];
  return [{ facts: doc as AssetTypeFacts }];
}

function adviceOf(facts: AssetTypeFacts, name: string | undefined): PatternAdvice {
  try {
    return advisePattern(facts);
  } catch (err) {
    if (err instanceof RbacError) throw new MigrationError("invalid-facts", name ? `${name}: ${err.message}` : err.message);
    throw err;
  }
}

function renderAdvice(advice: PatternAdvice, name: string | undefined): string {
  const lines = [
    `${name ? `${name}: ` : ""}Pattern ${advice.pattern} (${PATTERN_NAMES[advice.pattern]}): ${advice.reason}`,
    `  decision order: Pattern ${advice.decisionOrder.pattern}, ${advice.decisionOrder.reason}`,
    `  full tree:      Pattern ${advice.fullTree.pattern}, ${advice.fullTree.reason}`,
  ];
  if (advice.disagreement) lines.push(`  note: ${advice.disagreement}`);
  return lines.join("\n");
}

/** `gatehouse advise`: which pattern an asset type should use, and why. */
export function registerAdvise(program: Command): void {
  program
    .command("advise")
    .description("Advise the migration pattern (1-5) of an asset type from its facts, or by its name in the asset-type catalogue")
    .option("--asset-type <app:resource>", "an asset type of the catalogue (the bundled one, or the --facts file's), e.g. patch:system")
    .option("--facts <file>", "JSON file: { workspaceAware, expectedCount, accessibleShare, isAsset, assetCentric, hostRelated }, or an asset-type catalogue { version: 1, assetTypes }")
    .option("--workspace-aware", "the resource is already workspace-aware")
    .option("--count <n>", "results a list query can return", parseCount)
    .option("--share <x>", "share of results a user may access (0..1 or NN%)", parseShare)
    .option("--asset", "the customer manages it (create/read/update/delete); it could be placed in a workspace")
    .option("--asset-centric", "organization-wide operation that could become workspace- or host-level")
    .option("--host-related", "the asset is related to hosts")
    .option("--json", "print the advice as JSON")
    .action(async (opts: AdviseOptions) => {
      const fromFlags = opts.workspaceAware || opts.count !== undefined || opts.share !== undefined || opts.asset || opts.assetCentric || opts.hostRelated;
      if ((opts.facts || opts.assetType) && fromFlags) throw new MigrationError("invalid-options", "use either --facts / --asset-type or the fact flags, not both");
      if (!opts.facts && !opts.assetType && !fromFlags) {
        throw new MigrationError(
          "invalid-options",
          "advise needs an asset type: --asset-type <app:resource>, --facts <file>, or the fact flags (--workspace-aware, --count, --share, --asset, --asset-centric, --host-related)",
        );
      }
      let inputs: { name?: string; facts: AssetTypeFacts }[];
      if (opts.facts) inputs = await factsFromFile(opts.facts, opts.assetType);
      else if (opts.assetType) inputs = [{ name: opts.assetType, facts: factsOf(defaultAssetTypes(), opts.assetType) }];
      else {
        inputs = [
          {
            facts: {
              workspaceAware: opts.workspaceAware === true,
              isAsset: opts.asset === true,
              assetCentric: opts.assetCentric === true,
              hostRelated: opts.hostRelated === true,
              ...(opts.count !== undefined ? { expectedCount: opts.count } : {}),
              ...(opts.share !== undefined ? { accessibleShare: opts.share } : {}),
            },
          },
        ];
      }
      const advised = inputs.map(({ name, facts }) => ({ name, advice: adviceOf(facts, name) }));
      if (opts.json) {
        // One asset type (or bare facts): the advice itself; a whole catalogue: { "<app:resource>": advice }.
        const body = advised.length === 1 && (opts.assetType || advised[0]?.name === undefined) ? advised[0]?.advice : Object.fromEntries(advised.map((a) => [a.name, a.advice]));
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${advised.map((a) => renderAdvice(a.advice, a.name)).join("\n")}\n`);
    });
}
