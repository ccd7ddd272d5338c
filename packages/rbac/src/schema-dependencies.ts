// Which relations and permissions of a schema can answer differently after a configuration
// change: those whose own definition changed, those whose stored relationships changed, and
// everything that reads one of them (through a reference, an arrow or a subject set), in either
// schema. What is not in the set answers the same before and after for every subject, so a
// configuration impact evaluates only the rest.
import type { DefinitionAst, ExpressionAst, SchemaAst } from "@gatehouse/evaluator";

/** `type#member`, e.g. `rbac/workspace#inventory_host_view`. */
export type MemberKey = string;

export const memberKey = (type: string, member: string): MemberKey => `${type}#${member}`;

/** A definition as text without source positions, so moving a line changes nothing. */
function expressionText(e: ExpressionAst): string {
  switch (e.kind) {
    case "ref":
      return e.name;
    case "arrow":
      return `${e.tupleset}->${e.target}`;
    case "nil":
      return "nil";
    default:
      return `(${expressionText(e.left)} ${e.kind} ${expressionText(e.right)})`;
  }
}

function memberTexts(ast: SchemaAst): Map<MemberKey, string> {
  const out = new Map<MemberKey, string>();
  for (const d of ast.definitions) {
    for (const m of d.members) {
      const text =
        m.kind === "relation"
          ? `relation ${m.allowed.map((a) => `${a.type}${a.relation ? `#${a.relation}` : ""}${a.wildcard ? ":*" : ""}${a.expiration ? " with expiration" : ""}`).join(" | ")}`
          : `permission ${expressionText(m.expression)}`;
      out.set(memberKey(d.name, m.name), text);
    }
  }
  return out;
}

function refsOf(e: ExpressionAst, out: { refs: string[]; arrows: { tupleset: string; target: string }[] }): void {
  if (e.kind === "ref") out.refs.push(e.name);
  else if (e.kind === "arrow") out.arrows.push({ tupleset: e.tupleset, target: e.target });
  else if (e.kind !== "nil") {
    refsOf(e.left, out);
    refsOf(e.right, out);
  }
}

/**
 * Who reads whom: `readers` maps a member to the members reading it (who must be re-evaluated when
 * it changes), `reads` a member to the members it reads (what its answers are made of).
 */
function addEdges(ast: SchemaAst, readers: Map<MemberKey, Set<MemberKey>>, reads?: Map<MemberKey, Set<MemberKey>>): void {
  const defs = new Map<string, DefinitionAst>(ast.definitions.map((d) => [d.name, d]));
  const add = (map: Map<MemberKey, Set<MemberKey>>, key: MemberKey, value: MemberKey) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(value);
  };
  const edge = (from: MemberKey, reader: MemberKey) => {
    add(readers, from, reader);
    if (reads) add(reads, reader, from);
  };
  const subjectTypesOf = (type: string, relation: string): string[] => {
    const m = defs.get(type)?.members.find((x) => x.name === relation);
    return m?.kind === "relation" ? m.allowed.map((a) => a.type) : [];
  };
  for (const d of ast.definitions) {
    for (const m of d.members) {
      const self = memberKey(d.name, m.name);
      if (m.kind === "relation") {
        for (const a of m.allowed) if (a.relation) edge(memberKey(a.type, a.relation), self);
        continue;
      }
      const found = { refs: [] as string[], arrows: [] as { tupleset: string; target: string }[] };
      refsOf(m.expression, found);
      for (const r of found.refs) edge(memberKey(d.name, r), self);
      for (const a of found.arrows) {
        edge(memberKey(d.name, a.tupleset), self);
        for (const t of subjectTypesOf(d.name, a.tupleset)) edge(memberKey(t, a.target), self);
      }
    }
  }
}

/**
 * The members whose answers may differ between `before` and `after`: defined differently (or on
 * one side only), holding relationships that differ (`changedRelations`, stored names such as
 * `rbac/role#t_inventory_hosts_read`), or reading any of those, transitively.
 */
export function affectedMembers(before: SchemaAst, after: SchemaAst, changedRelations: Iterable<MemberKey> = []): Set<MemberKey> {
  const a = memberTexts(before);
  const b = memberTexts(after);
  const changed = new Set<MemberKey>();
  for (const [k, text] of a) if (b.get(k) !== text) changed.add(k);
  for (const k of b.keys()) if (!a.has(k)) changed.add(k);
  for (const k of changedRelations) changed.add(k);
  const readers = new Map<MemberKey, Set<MemberKey>>();
  addEdges(before, readers);
  addEdges(after, readers);
  const queue = [...changed];
  while (queue.length > 0) {
    const k = queue.pop() as MemberKey;
    for (const r of readers.get(k) ?? []) {
      if (changed.has(r)) continue;
      changed.add(r);
      queue.push(r);
    }
  }
  return changed;
}

/** `type#relation` of every relationship only one side holds (compared by key). */
export function changedRelationsOf<T extends { readonly resourceType: string; readonly relation: string }>(before: readonly T[], after: readonly T[], keyOf: (t: T) => string): Set<MemberKey> {
  const relationOf = (t: T) => memberKey(t.resourceType, t.relation);
  // Sides derived from one another share most objects: those need no key.
  const shared = new Set<T>(before);
  const a = new Map<string, MemberKey>();
  const b = new Set<string>();
  const out = new Set<MemberKey>();
  const sharedSeen = new Set<T>();
  for (const t of after) {
    if (shared.has(t)) {
      sharedSeen.add(t);
      continue;
    }
    b.add(keyOf(t));
  }
  for (const t of shared) {
    if (sharedSeen.has(t)) continue;
    const k = keyOf(t);
    a.set(k, relationOf(t));
    if (!b.has(k)) out.add(relationOf(t));
  }
  for (const t of after) if (!shared.has(t) && !a.has(keyOf(t))) out.add(relationOf(t));
  return out;
}

/**
 * Every member the answers of `roots` are made of (in either schema), the roots included: the
 * relations whose relationships a graph needs to answer them. A host's placement, say, is not
 * needed to answer a workspace permission.
 */
export function readClosure(schemas: readonly SchemaAst[], roots: Iterable<MemberKey>): Set<MemberKey> {
  const reads = new Map<MemberKey, Set<MemberKey>>();
  for (const ast of schemas) addEdges(ast, new Map(), reads);
  const out = new Set<MemberKey>(roots);
  const queue = [...out];
  while (queue.length > 0) {
    for (const r of reads.get(queue.pop() as MemberKey) ?? []) {
      if (out.has(r)) continue;
      out.add(r);
      queue.push(r);
    }
  }
  return out;
}
