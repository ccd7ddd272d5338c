// Reloading the role configuration while running: compile the new one, compare its schema with
// the running one, refuse removals that stored relationships still use (naming them), otherwise
// seed its roles and make it active in one transaction.
import type { SchemaAst } from "@gatehouse/role-config";
import type { SchemaElement, SeedReport, Store } from "@gatehouse/store";
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

export interface ReloadResult {
  hash: string;
  dir: string;
  loadedAt: Date;
  revision: number;
  /** false: the files are what is active already; nothing was recorded (no new revision). */
  changed: boolean;
  diff: SchemaDiff;
  seeding: Omit<SeedReport, "roles">;
}

/**
 * Checks and applies `next` (schema activation + role seeding, one transaction); throws
 * ReloadRefusedError. Files identical to the active configuration (the one a reload recorded, else
 * the running one) record nothing: roles are still seeded (a missing one comes back), which takes
 * a revision only if that changed something.
 */
export async function applyRoleConfiguration(store: Store, running: { schemaAst: SchemaAst; hash: string }, next: RoleConfiguration): Promise<ReloadResult> {
  const diff = diffSchemas(running.schemaAst, next.schemaAst);
  const inUse = await store.roleConfig.inUse(diff.removed);
  if (inUse.length > 0) throw new ReloadRefusedError(inUse);
  const { hash, dir, loadedAt } = next.identity;
  const active = (await store.roleConfig.active())?.hash ?? running.hash;
  const changed = active !== hash;
  const { value, revision } = await store.roles.seedSystemRoles(next.systemRoles, changed ? { activate: { hash, dir, loadedAt, schemaZed: next.schemaZed } } : {});
  const { roles: _roles, ...seeding } = value;
  return { hash, dir, loadedAt, revision, changed, diff, seeding };
}
