import { RbacError } from "./errors.js";

/** The five patterns of the specification ("Pattern selection"). */
export type PatternNumber = 1 | 2 | 3 | 4 | 5;

export const PATTERN_NAMES: Readonly<Record<PatternNumber, string>> = {
  1: "Native",
  2: "Native workspace-level list",
  3: "Default Workspace",
  4: "Root Workspace",
  5: "Organization-level",
};

/** Facts about one asset type that decide its pattern. */
export interface AssetTypeFacts {
  /** The resource is modelled in the workspace hierarchy already. */
  readonly workspaceAware: boolean;
  /** How many results a list query can return (for workspace-aware resources). */
  readonly expectedCount?: number;
  /** Share (0..1) of results a typical user may access (for workspace-aware resources). */
  readonly accessibleShare?: number;
  /** The customer creates/reads/updates/deletes it; it could be placed in a workspace. */
  readonly isAsset: boolean;
  /** For organisation resources: the operation could become workspace- or host-level. */
  readonly assetCentric: boolean;
  /** The asset is related to hosts. */
  readonly hostRelated: boolean;
}

/** Result-count threshold between Pattern 1 and 2 (about 10,000). */
export const RESULT_COUNT_THRESHOLD = 10_000;
/** Accessible-share threshold between Pattern 1 and 2 (about 80%). */
export const ACCESSIBLE_SHARE_THRESHOLD = 0.8;

export interface PatternChoice {
  readonly pattern: PatternNumber;
  readonly reason: string;
}

export interface PatternAdvice extends PatternChoice {
  readonly decisionOrder: PatternChoice;
  readonly fullTree: PatternChoice;
  /** Set when the initial-migration decision order and the full tree pick different patterns. */
  readonly disagreement?: string;
}

/** Rejects facts that the advisor cannot decide on (so a bad facts file never yields a guess). */
export function validateFacts(facts: AssetTypeFacts): AssetTypeFacts {
  const problems: string[] = [];
  for (const key of ["workspaceAware", "isAsset", "assetCentric", "hostRelated"] as const) {
    if (typeof facts[key] !== "boolean") problems.push(`${key} must be a boolean`);
  }
  if (facts.expectedCount !== undefined && !(Number.isFinite(facts.expectedCount) && facts.expectedCount >= 0)) {
    problems.push("expectedCount must be a non-negative number");
  }
  if (facts.accessibleShare !== undefined && !(Number.isFinite(facts.accessibleShare) && facts.accessibleShare >= 0 && facts.accessibleShare <= 1)) {
    problems.push("accessibleShare must be a number between 0 and 1");
  }
  if (facts.workspaceAware && (facts.expectedCount === undefined || facts.accessibleShare === undefined)) {
    problems.push("a workspace-aware resource needs expectedCount and accessibleShare");
  }
  if (problems.length > 0) throw new RbacError("invalid-facts", `invalid asset type facts: ${problems.join("; ")}`, problems);
  return facts;
}

const percent = (share: number): string => `${Math.round(share * 100)}%`;

function organisationPattern(facts: AssetTypeFacts, prefix: string): PatternChoice {
  return facts.assetCentric
    ? { pattern: 4, reason: `${prefix}the resource is the organization and the operation is asset-centric` }
    : { pattern: 5, reason: `${prefix}the resource is the organization and the operation is not asset-centric` };
}

/** The full decision tree of "Pattern selection". */
export function fullTreePattern(facts: AssetTypeFacts): PatternChoice {
  if (facts.workspaceAware) {
    const count = facts.expectedCount ?? 0;
    const share = facts.accessibleShare ?? 1;
    // Pattern 2 only when BOTH conditions hold: many results and a small accessible share.
    if (count > RESULT_COUNT_THRESHOLD && share < ACCESSIBLE_SHARE_THRESHOLD) {
      return {
        pattern: 2,
        reason: `workspace-aware with more than ~10,000 results (${count}) and under ~80% accessible (${percent(share)})`,
      };
    }
    const why = count <= RESULT_COUNT_THRESHOLD ? `fewer than ~10,000 results (${count})` : `more than ~80% of results accessible (${percent(share)})`;
    return { pattern: 1, reason: `workspace-aware with ${why}` };
  }
  if (facts.isAsset) return { pattern: 3, reason: "not workspace-aware and an asset" };
  return organisationPattern(facts, "not workspace-aware and not an asset: ");
}

/** The decision order for the initial migration (steps 1-4 of "Pattern selection"). */
export function decisionOrderPattern(facts: AssetTypeFacts): PatternChoice {
  if (facts.hostRelated && facts.workspaceAware) {
    return { pattern: 2, reason: "step 1: asset related to a host and the service is already workspace-aware" };
  }
  if (facts.isAsset) return { pattern: 3, reason: "step 2: the resource can be conceptualized as an asset" };
  return organisationPattern(facts, facts.assetCentric ? "step 3: " : "step 4: ");
}

/**
 * Advises the pattern of an asset type. The decision order decides (it is the rule of the
 * initial migration); the full tree is computed too and any disagreement is spelled out.
 */
export function advisePattern(facts: AssetTypeFacts): PatternAdvice {
  validateFacts(facts);
  const decisionOrder = decisionOrderPattern(facts);
  const fullTree = fullTreePattern(facts);
  let chosen = decisionOrder;
  let disagreement: string | undefined;
  if (decisionOrder.pattern !== fullTree.pattern) {
    // A workspace-aware resource that the decision order sends to Pattern 3 stays native:
    // making resources (non-)workspace-aware is out of scope, so the full tree is kept there.
    if (facts.workspaceAware && decisionOrder.pattern !== 2) chosen = fullTree;
    disagreement =
      `decision order gives Pattern ${decisionOrder.pattern} (${decisionOrder.reason}) but the full tree gives ` + `Pattern ${fullTree.pattern} (${fullTree.reason}); using Pattern ${chosen.pattern}`;
  }
  return { pattern: chosen.pattern, reason: chosen.reason, decisionOrder, fullTree, ...(disagreement ? { disagreement } : {}) };
}
