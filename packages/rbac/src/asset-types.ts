import { RbacError } from "./errors.js";
import { advisePattern, validateFacts, type AssetTypeFacts, type PatternAdvice, type PatternNumber } from "./patterns.js";
import { parseV1Permission, v1ToV2PermissionName } from "./permissions.js";
import bundled from "./data/asset-types.json" with { type: "json" };

/** How one v1 verb of an asset type appears in v2. */
export interface AssetVerbConfig {
  /** The v2 permissions a role holding the v1 permission is assigned (default: the conventional name). */
  readonly v2: readonly string[];
  /** The relation the application checks (default: first of `v2`); for Pattern 2 the contingent permission. */
  readonly relation: string;
}

/** An asset type `app:resource` with its facts and the pattern the advisor picked. */
export interface AssetType {
  readonly key: string;
  readonly app: string;
  readonly resource: string;
  readonly description: string;
  readonly facts: AssetTypeFacts;
  readonly advice: PatternAdvice;
  readonly pattern: PatternNumber;
  /** Object type of single-resource checks and lists in Patterns 1 and 2. */
  readonly object?: { readonly resourceType: string; readonly reporterType: string };
  readonly verbs: Readonly<Record<string, AssetVerbConfig>>;
}

export interface AssetTypeCatalog {
  readonly assetTypes: ReadonlyMap<string, AssetType>;
  /** The asset type of `app:resource`, or undefined when it is not classified. */
  get(app: string, resource: string): AssetType | undefined;
  /** Every concrete v1 permission `app:resource:verb` of the catalog. */
  permissions(): string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNameList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === "string" && /^[a-z0-9_]+$/.test(s));

function parseEntry(key: string, raw: unknown, problems: string[]): AssetType | undefined {
  const at = `assetTypes['${key}']`;
  let app: string;
  let resource: string;
  try {
    const p = parseV1Permission(`${key}:x`);
    if (p.resource === "*") throw new Error("wildcard");
    app = p.app;
    resource = p.resource;
  } catch {
    problems.push(`${at}: key must be 'application:resource' without wildcards`);
    return undefined;
  }
  if (!isRecord(raw)) {
    problems.push(`${at}: must be an object`);
    return undefined;
  }
  if (!isRecord(raw.facts)) {
    problems.push(`${at}.facts: must be an object`);
    return undefined;
  }
  let advice: PatternAdvice;
  const facts = raw.facts as unknown as AssetTypeFacts;
  try {
    validateFacts(facts);
    advice = advisePattern(facts);
  } catch (err) {
    problems.push(`${at}.facts: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  if (!isRecord(raw.verbs) || Object.keys(raw.verbs).length === 0) {
    problems.push(`${at}.verbs: must map at least one v1 verb`);
    return undefined;
  }
  const verbs: Record<string, AssetVerbConfig> = {};
  for (const [verb, cfg] of Object.entries(raw.verbs)) {
    if (verb === "*" || verb.includes(":") || verb === "") {
      problems.push(`${at}.verbs: '${verb}' is not a concrete verb`);
      continue;
    }
    const c = isRecord(cfg) ? cfg : {};
    const v2 = c.v2 === undefined ? [v1ToV2PermissionName(`${app}:${resource}:${verb}`)] : c.v2;
    if (!isNameList(v2)) {
      problems.push(`${at}.verbs.${verb}.v2: must be a non-empty list of lower-case permission names`);
      continue;
    }
    const relation = c.relation === undefined ? v2[0] : c.relation;
    if (typeof relation !== "string" || !/^[a-z0-9_]+$/.test(relation)) {
      problems.push(`${at}.verbs.${verb}.relation: must be a lower-case permission name`);
      continue;
    }
    verbs[verb] = { v2, relation: relation as string };
  }
  let object: AssetType["object"];
  if (raw.object !== undefined) {
    const o = raw.object;
    if (!isRecord(o) || typeof o.resourceType !== "string" || typeof o.reporterType !== "string") {
      problems.push(`${at}.object: must be { resourceType, reporterType }`);
    } else object = { resourceType: o.resourceType, reporterType: o.reporterType };
  }
  if ((advice.pattern === 1 || advice.pattern === 2) && object === undefined) {
    problems.push(`${at}: Pattern ${advice.pattern} needs 'object' (the resource type checked natively)`);
  }
  return {
    key,
    app,
    resource,
    description: typeof raw.description === "string" ? raw.description : "",
    facts,
    advice,
    pattern: advice.pattern,
    ...(object ? { object } : {}),
    verbs,
  };
}

/** Validates an asset-types document `{ version: 1, assetTypes: { "app:resource": {...} } }`. */
export function parseAssetTypes(doc: unknown): AssetTypeCatalog {
  const problems: string[] = [];
  if (!isRecord(doc) || doc.version !== 1 || !isRecord(doc.assetTypes)) {
    throw new RbacError("invalid-asset-types", "asset types must be { version: 1, assetTypes: { ... } }");
  }
  const assetTypes = new Map<string, AssetType>();
  for (const [key, raw] of Object.entries(doc.assetTypes)) {
    const parsed = parseEntry(key, raw, problems);
    if (parsed) assetTypes.set(key, parsed);
  }
  if (problems.length > 0) {
    throw new RbacError("invalid-asset-types", `invalid asset types:\n  ${problems.join("\n  ")}`, problems);
  }
  return {
    assetTypes,
    get: (app, resource) => assetTypes.get(`${app}:${resource}`),
    permissions: () => [...assetTypes.values()].flatMap((t) => Object.keys(t.verbs).map((v) => `${t.key}:${v}`)).sort(),
  };
}

/** The asset types shipped with Gatehouse for the console applications. */
export function defaultAssetTypes(): AssetTypeCatalog {
  return parseAssetTypes(bundled);
}

/** The asset type and verb config of a concrete v1 permission; throws for unclassified ones. */
export function assetVerb(catalog: AssetTypeCatalog, permission: string): { assetType: AssetType; verb: AssetVerbConfig } {
  const p = parseV1Permission(permission);
  const assetType = catalog.get(p.app, p.resource);
  if (!assetType) {
    throw new RbacError("unknown-asset-type", `no asset type configured for '${p.app}:${p.resource}' (permission '${permission}')`);
  }
  const verb = assetType.verbs[p.verb];
  if (!verb) {
    throw new RbacError("unknown-verb", `asset type '${assetType.key}' has no verb '${p.verb}' (permission '${permission}')`);
  }
  return { assetType, verb };
}
