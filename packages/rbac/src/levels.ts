import type { PatternNumber } from "./patterns.js";

/** Where a role is bound: the tenant, the Root Workspace or the Default Workspace. */
export type BindingLevel = "tenant" | "root" | "default";

export const BINDING_LEVELS: readonly BindingLevel[] = ["tenant", "root", "default"];

const RANK: Readonly<Record<BindingLevel, number>> = { default: 0, root: 1, tenant: 2 };

export const LEVEL_LABELS: Readonly<Record<BindingLevel, string>> = {
  tenant: "Organization (tenant)",
  root: "Root Workspace",
  default: "Default Workspace",
};

export function levelRank(level: BindingLevel): number {
  return RANK[level];
}

export function highestLevel(levels: Iterable<BindingLevel>): BindingLevel {
  let best: BindingLevel = "default";
  for (const l of levels) if (RANK[l] > RANK[best]) best = l;
  return best;
}

/** Levels strictly above `level` (where a binding there would be an over-grant). */
export function levelsAbove(level: BindingLevel): BindingLevel[] {
  return BINDING_LEVELS.filter((l) => RANK[l] > RANK[level]);
}

/**
 * The binding level a permission of a pattern needs, which is also where the application checks
 * it in the first phase (Patterns 1 and 2: the assets live in the Default Workspace tree).
 */
export function levelOfPattern(pattern: PatternNumber): BindingLevel {
  if (pattern === 5) return "tenant";
  if (pattern === 4) return "root";
  return "default";
}
