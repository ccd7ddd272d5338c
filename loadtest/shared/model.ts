// The deterministic data model shared by the k6 scripts and the Node driver. Pure functions only
// (no Node or k6 APIs): both runtimes import this file, so both derive the same hosts, workspaces,
// groups and subjects from the seed without shipping 100,000 rows around.

export interface ScaleSpec {
  hosts: number;
  workspaces: number;
  principals: number;
  groups: number;
}

export interface ScenarioThresholds {
  p95Ms?: number;
  p99Ms?: number;
  errorRate: number;
}

export interface ScenarioFile {
  seed: number;
  org: string;
  scales: Record<string, ScaleSpec>;
  tree: { maxDepth: number; topLevelShare: number };
  access: { contingentBindingsPerGroup: number; hostOnlyBindingsPerGroup: number; measuredSubjects: number };
  relations: { check: string; checkForUpdate: string; contingent: string };
  scenarios: {
    floor: { description: string; duration: string; smokeDuration: string };
    "check-mix": {
      description: string;
      rate: number;
      smokeRate: number;
      checkForUpdateShare: number;
      duration: string;
      smokeDuration: string;
      preAllocatedVUs: number;
      thresholds: ScenarioThresholds;
    };
    "pattern2-list": {
      description: string;
      concurrency: number;
      duration: string;
      smokeDuration: string;
      pageSize: number;
      appPageSize: number;
      thresholds: ScenarioThresholds;
    };
    "pattern2-list-broad": { description: string; concurrency: number; duration: string; smokeDuration: string };
    "pattern1-checkbulk": { description: string; batchSize: number; concurrency: number; iterations: number; smokeIterations: number };
    "pattern1-check": { description: string; concurrency: number; sampleHosts: number; smokeSampleHosts: number };
    "management-mix": {
      description: string;
      concurrency: number;
      duration: string;
      smokeDuration: string;
      weights: { workspaceList: number; roleList: number; batchCreate: number };
      thresholds: ScenarioThresholds;
    };
  };
}

/** Fails loudly on a malformed scenario file instead of producing NaN rates later. */
export function validateScenarioFile(value: unknown): ScenarioFile {
  const file = value as ScenarioFile;
  const problems: string[] = [];
  if (typeof file?.seed !== "number") problems.push("seed must be a number");
  if (typeof file?.org !== "string") problems.push("org must be a string");
  for (const [name, s] of Object.entries(file?.scales ?? {})) {
    for (const key of ["hosts", "workspaces", "principals", "groups"] as const) {
      if (!Number.isInteger(s[key]) || s[key] <= 0) problems.push(`scales.${name}.${key} must be a positive integer`);
    }
    if (s.principals <= RESERVED_PRINCIPALS) problems.push(`scales.${name}.principals must exceed ${RESERVED_PRINCIPALS}`);
  }
  for (const name of ["floor", "check-mix", "pattern2-list", "pattern2-list-broad", "pattern1-checkbulk", "pattern1-check", "management-mix"]) {
    if (!file?.scenarios || !(name in file.scenarios)) problems.push(`scenarios.${name} is missing`);
  }
  if (problems.length > 0) throw new Error(`Invalid scenario file: ${problems.join("; ")}`);
  return file;
}

export function scaleOf(file: ScenarioFile, name: string): ScaleSpec {
  const scale = file.scales[name];
  if (!scale) throw new Error(`Unknown scale '${name}'; choose one of ${Object.keys(file.scales).join(", ")}`);
  return scale;
}

/** "20s", "2m", "500ms" → milliseconds (the k6 duration syntax, reused by the Node driver). */
export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text);
  if (!match) throw new Error(`Invalid duration '${text}' (use e.g. 500ms, 20s, 2m)`);
  const n = Number(match[1]);
  return match[2] === "ms" ? n : match[2] === "s" ? n * 1000 : n * 60_000;
}

// ---- deterministic hashing ------------------------------------------------------------------

/** 32-bit integer mix (murmur3 finaliser): stateless, so any host's placement is O(1). */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

// ---- workspaces -----------------------------------------------------------------------------

export interface PlannedWorkspace {
  index: number;
  name: string;
  /** Index of the parent workspace; -1 = the organisation's default workspace. */
  parent: number;
  /** 1 = child of the default workspace. */
  depth: number;
}

/** A tree of `count` workspaces under the default workspace, at most `maxDepth` deep. */
export function planWorkspaces(seed: number, count: number, maxDepth: number, topLevelShare: number): PlannedWorkspace[] {
  const top = Math.max(1, Math.min(count, Math.round(count * topLevelShare)));
  const out: PlannedWorkspace[] = [];
  for (let i = 0; i < count; i++) {
    const name = `lt-ws-${String(i).padStart(6, "0")}`;
    if (i < top) {
      out.push({ index: i, name, parent: -1, depth: 1 });
      continue;
    }
    // Walk from a random earlier workspace towards the top until the child fits under maxDepth.
    let parent = hash32(seed, 1, i) % i;
    while ((out[parent] as PlannedWorkspace).depth >= maxDepth) parent = (out[parent] as PlannedWorkspace).parent;
    out.push({ index: i, name, parent, depth: (out[parent] as PlannedWorkspace).depth + 1 });
  }
  return out;
}

// ---- hosts ----------------------------------------------------------------------------------

/** Host ids look like real inventory ids (UUIDs) and sort in index order. */
export function hostId(index: number): string {
  return `00000000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

export function hostWorkspaceIndex(seed: number, hostIndex: number, workspaceCount: number): number {
  return hash32(seed, 2, hostIndex) % workspaceCount;
}

// ---- principals, groups, bindings -----------------------------------------------------------

/** The last principals belong to the tenant-, root- and default-level groups, never measured. */
export const RESERVED_PRINCIPALS = 9;

export function userId(index: number): string {
  return `lt-user-${String(index).padStart(7, "0")}`;
}

export function groupName(index: number): string {
  return `lt-group-${String(index).padStart(5, "0")}`;
}

export const LEVEL_GROUPS = { tenant: "lt-tenant-admins", root: "lt-root-viewers", default: "lt-default-viewers" } as const;
export const CUSTOM_ROLES = {
  // The platform default group grants inventory host view and patch read to everyone at the
  // tenant, so the contingent relation measured is patch_system_edit (host view & patch write).
  contingent: { name: "lt-hosts-and-patch-editor", permissions: ["inventory:hosts:read", "patch:system:write"] },
  hostsOnly: { name: "lt-hosts-viewer", permissions: ["inventory:hosts:read"] },
} as const;

/** Standard group of a principal (reserved principals are in a level group instead). */
export function groupOfPrincipal(scale: ScaleSpec, principal: number): number {
  return principal % scale.groups;
}

export function levelGroupOfPrincipal(scale: ScaleSpec, principal: number): keyof typeof LEVEL_GROUPS | undefined {
  const fromEnd = scale.principals - 1 - principal;
  if (fromEnd < 0 || fromEnd >= RESERVED_PRINCIPALS) return undefined;
  return (["tenant", "root", "default"] as const)[fromEnd % 3];
}

export interface PlannedBinding {
  group: number;
  workspace: number;
  role: keyof typeof CUSTOM_ROLES;
}

/** Standard-level bindings: each group gets a few random workspaces (and their subtrees). */
export function planStandardBindings(seed: number, scale: ScaleSpec, contingentPerGroup: number, hostOnlyPerGroup: number): PlannedBinding[] {
  const out: PlannedBinding[] = [];
  const seen = new Set<string>();
  for (let g = 0; g < scale.groups; g++) {
    for (let k = 0; k < contingentPerGroup + hostOnlyPerGroup; k++) {
      const workspace = hash32(seed, 3, g, k) % scale.workspaces;
      const role = k < contingentPerGroup ? "contingent" : "hostsOnly";
      const key = `${g}/${workspace}/${role}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ group: g, workspace, role });
    }
  }
  return out;
}

/** The reserved principals in the default-level group: they see every host. */
export function defaultLevelPrincipals(scale: ScaleSpec): number[] {
  const out: number[] = [];
  for (let p = scale.principals - RESERVED_PRINCIPALS; p < scale.principals; p++) if (levelGroupOfPrincipal(scale, p) === "default") out.push(p);
  return out;
}

/** Principals whose requests are measured: not reserved, spread over the groups. */
export function measuredPrincipals(scale: ScaleSpec, count: number): number[] {
  const usable = scale.principals - RESERVED_PRINCIPALS;
  const n = Math.min(count, usable);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(Math.floor((i * usable) / n));
  return out;
}
