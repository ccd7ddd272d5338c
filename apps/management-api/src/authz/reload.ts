// Reloading the role configuration while running: compile the new one, compare its schema with
// the running one, refuse removals that stored relationships still use (naming them), refuse a
// change that takes access away from anyone unless the caller accepts the impact it was shown
// (its token), otherwise seed its roles and make it active in one transaction.
import { createHash } from "node:crypto";
import type { AssetTypeCatalog, ConfigImpact } from "@gatehouse/rbac";
import type { SchemaAst } from "@gatehouse/role-config";
import type { SchemaElement, SeedReport, Store } from "@gatehouse/store";
import { storeConfigImpact } from "./config-impact.js";
import type { RoleConfiguration } from "./role-config.js";

export interface SchemaDiff {
  added: SchemaElement[];
  removed: SchemaElement[];
}

function elementsOf(ast: SchemaAst): Map<string, SchemaElement> {
  const out = new Map<string, SchemaElement>();
  for (const d of ast.definitions) {
    out.set(d.name, { kind: "type", type: d.name });
    for (const m of d.members) out.set(`${d.name}#${m.name}`, { kind: m.kind === "relation" ? "relation" : "permission", type: d.name, name: m.name });
  }
  return out;
}

/** Types, relations and permissions only one side has. A removed type is listed once, not with its members. */
export function diffSchemas(before: SchemaAst, after: SchemaAst): SchemaDiff {
  const a = elementsOf(before);
  const b = elementsOf(after);
  const removedTypes = new Set([...a.values()].filter((e) => e.kind === "type" && !b.has(e.type)).map((e) => e.type));
  const removed = [...a.entries()].filter(([k, e]) => !b.has(k) && (e.kind === "type" || !removedTypes.has(e.type))).map(([, e]) => e);
  const added = [...b.entries()].filter(([k]) => !a.has(k)).map(([, e]) => e);
  return { added, removed };
}

export const describeElement = (e: SchemaElement): string => (e.kind === "type" ? `type ${e.type}` : `${e.kind} ${e.type}#${e.name}`);

/** A reload that would remove what stored relationships use; nothing was changed. */
export class ReloadRefusedError extends Error {
  override readonly name = "ReloadRefusedError";
  constructor(readonly inUse: SchemaElement[]) {
    super(`The new role configuration removes schema elements that stored relationships still use: ${inUse.map(describeElement).join(", ")}.`);
  }
}

/**
 * A reload that would take access away (or break a v1 grant's parity) without the caller accepting
 * it; nothing was changed. `token` accepts exactly this impact of exactly these two configurations.
 */
export class ReloadImpactError extends Error {
  override readonly name = "ReloadImpactError";
  constructor(
    readonly impact: ConfigImpact,
    readonly token: string,
  ) {
    super(
      `The new role configuration takes access away: ${impact.summary.lost} lost grant(s) across ${impact.organisations.filter((o) => o.lost + o.parityBroken > 0).length} organisation(s). Reload again with accept=${token} to apply it.`,
    );
  }
}

/** The token accepting an impact: the two configurations and what the change does. */
export function impactToken(runningHash: string, nextHash: string, digest: string): string {
  return createHash("sha256").update(`${runningHash}\n${nextHash}\n${digest}`).digest("hex").slice(0, 32);
}

/** What a reload must show before taking access away (the running configuration, to compare with). */
export interface ImpactGuard {
  readonly running: RoleConfiguration;
  readonly catalog: AssetTypeCatalog;
  readonly domain: string;
  /** The token of the impact the caller was shown and accepts. */
  readonly accept?: string;
}

export interface ReloadResult {
  hash: string;
  dir: string;
  loadedAt: Date;
  revision: number;
  /** false: the files are what is active already; nothing was recorded (no new revision). */
  changed: boolean;
  diff: SchemaDiff;
  seeding: Omit<SeedReport, "roles">;
  /** The change's impact on the store's organisations (when guarded and the files changed). */
  impact?: ConfigImpact;
}

/**
 * Checks and applies `next` (schema activation + role seeding, one transaction); throws
 * ReloadRefusedError. Files identical to the active configuration (the one a reload recorded, else
 * the running one) record nothing: roles are still seeded (a missing one comes back), which takes
 * a revision only if that changed something.
 */
export async function applyRoleConfiguration(store: Store, running: { schemaAst: SchemaAst; hash: string }, next: RoleConfiguration, guard?: ImpactGuard): Promise<ReloadResult> {
  const diff = diffSchemas(running.schemaAst, next.schemaAst);
  const inUse = await store.roleConfig.inUse(diff.removed);
  if (inUse.length > 0) throw new ReloadRefusedError(inUse);
  const { hash, dir, loadedAt } = next.identity;
  const active = (await store.roleConfig.active())?.hash ?? running.hash;
  const changed = active !== hash;
  let impact: ConfigImpact | undefined;
  if (guard && changed) {
    const computed = await storeConfigImpact(store, guard.running, next, guard.catalog, guard.domain);
    impact = computed.impact;
    const token = impactToken(guard.running.identity.hash, hash, computed.digest);
    if (impact.summary.lost + impact.summary.parityBroken > 0 && guard.accept !== token) throw new ReloadImpactError(impact, token);
  }
  const { value, revision } = await store.roles.seedSystemRoles(next.systemRoles, changed ? { activate: { hash, dir, loadedAt, schemaZed: next.schemaZed } } : {});
  const { roles: _roles, ...seeding } = value;
  return { hash, dir, loadedAt, revision, changed, diff, seeding, ...(impact ? { impact } : {}) };
}
