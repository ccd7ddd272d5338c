// AST → validated Model. Rejects unknown types and names, arrows whose left side is a permission or
// allows wildcards, duplicate names and names SpiceDB would refuse.
import { SchemaError } from "../errors.js";
import type { DefinitionAst, ExpressionAst, SchemaAst } from "../schema/ast.js";
import { parseSchema } from "../schema/parser.js";
import { Model, type AllowedSubject, type Definition, type Op, type PermissionDef, type RelationDef, type Slot } from "./model.js";

const TYPE_NAME = /^([a-z][a-z0-9_]{1,61}[a-z0-9]\/)*[a-z][a-z0-9_]{1,62}[a-z0-9]$/;
const RELATION_NAME = /^[a-z][a-z0-9_]{1,62}[a-z0-9]$/;

export function compileSchema(input: string | SchemaAst): Model {
  const ast = typeof input === "string" ? parseSchema(input) : input;
  const file = ast.fileName;
  const fail = (code: ConstructorParameters<typeof SchemaError>[0], message: string, at: { line: number; column: number }): never => {
    throw new SchemaError(code, message, at.line, at.column, file);
  };

  // Pass 1: names, slots, duplicates.
  const indexByType = new Map<string, number>();
  ast.definitions.forEach((d) => {
    if (!TYPE_NAME.test(d.name)) fail("invalid-name", `invalid definition name '${d.name}'`, d);
    if (indexByType.has(d.name)) fail("duplicate-definition", `definition '${d.name}' is declared twice`, d);
    indexByType.set(d.name, indexByType.size);
  });
  const slots: Slot[] = [];
  const slotsByType: Array<Map<string, number>> = [];
  for (const [typeIndex, d] of ast.definitions.entries()) {
    const names = new Map<string, number>();
    for (const m of d.members) {
      if (!RELATION_NAME.test(m.name)) fail("invalid-name", `invalid ${m.kind} name '${m.name}' in '${d.name}'`, m);
      if (names.has(m.name)) fail("duplicate-relation", `'${m.name}' is declared twice in '${d.name}'`, m);
      names.set(m.name, slots.length);
      slots.push({ typeIndex, name: m.name, stored: m.kind === "relation", allowed: [], op: undefined });
    }
    slotsByType.push(names);
  }
  const slotOf = (typeIndex: number, name: string): number => slotsByType[typeIndex]?.get(name) ?? -1;

  // Pass 2: allowed subject types.
  for (const [typeIndex, d] of ast.definitions.entries()) {
    for (const m of d.members) {
      if (m.kind !== "relation") continue;
      const seen = new Set<string>();
      const allowed: AllowedSubject[] = m.allowed.map((a) => {
        // SpiceDB compares the written form, traits included (`user` and `user with expiration` differ).
        const source = `${a.type}${a.wildcard ? ":*" : a.relation !== undefined ? `#${a.relation}` : ""}${a.expiration ? " with expiration" : ""}`;
        if (seen.has(source)) {
          fail("duplicate-allowed-subject", `found duplicate allowed subject type \`${source}\` on relation \`${m.name}\` under definition \`${d.name}\``, a);
        }
        seen.add(source);
        if (a.expiration && !ast.useExpiration) {
          fail("expiration-not-enabled", `could not lookup caveat \`expiration\` for relation \`${m.name}\`: add 'use expiration' to the schema`, a);
        }
        const subjectIndex = indexByType.get(a.type);
        if (subjectIndex === undefined) return fail("unknown-type", `unknown type '${a.type}' in relation '${d.name}#${m.name}'`, a);
        if (a.relation !== undefined && slotOf(subjectIndex, a.relation) < 0) {
          fail("unknown-relation", `'${a.type}' has no relation or permission '${a.relation}'`, a);
        }
        const out: AllowedSubject = { type: a.type, typeIndex: subjectIndex, wildcard: a.wildcard, expiration: a.expiration === true };
        if (a.relation !== undefined) out.relation = a.relation;
        return out;
      });
      slots[slotOf(typeIndex, m.name)]!.allowed = allowed;
    }
  }

  /**
   * The first wildcard a relation admits, directly or through subject sets (of any type, followed
   * transitively; permissions carry no types, so they end the walk), as SpiceDB's type system finds it.
   */
  const wildcardReachedFrom = (slot: number, seen = new Set<number>()): { type: string; via: string } | undefined => {
    if (seen.has(slot)) return undefined;
    seen.add(slot);
    const s = slots[slot]!;
    if (!s.stored) return undefined;
    for (const a of s.allowed) {
      if (a.wildcard) return { type: a.type, via: `${ast.definitions[s.typeIndex]!.name}#${s.name}` };
      if (a.relation !== undefined) {
        const found = wildcardReachedFrom(slotOf(a.typeIndex, a.relation), seen);
        if (found) return found;
      }
    }
    return undefined;
  };

  // Pass 2b: a subject set of another type must not bring in a wildcard (SpiceDB: "cannot be transitively included").
  for (const [typeIndex, d] of ast.definitions.entries()) {
    for (const m of d.members) {
      if (m.kind !== "relation") continue;
      m.allowed.forEach((a, i) => {
        const resolved = slots[slotOf(typeIndex, m.name)]!.allowed[i]!;
        if (a.relation === undefined || resolved.typeIndex === typeIndex) return;
        const found = wildcardReachedFrom(slotOf(resolved.typeIndex, a.relation));
        if (found) {
          fail(
            "transitive-wildcard",
            `for relation \`${m.name}\`: relation/permission \`${a.type}#${a.relation}\` includes wildcard type \`${found.type}\` via relation \`${found.via}\`: wildcard relations cannot be transitively included`,
            a,
          );
        }
      });
    }
  }

  // Pass 3: permission expressions.
  let permission = "";
  for (const [typeIndex, d] of ast.definitions.entries()) {
    for (const m of d.members) {
      if (m.kind === "permission") {
        permission = m.name;
        slots[slotOf(typeIndex, m.name)]!.op = compileExpression(m.expression, typeIndex, d);
      }
    }
  }

  function compileExpression(e: ExpressionAst, typeIndex: number, d: DefinitionAst): Op {
    switch (e.kind) {
      case "nil":
        return { k: "nil" };
      case "ref": {
        const slot = slotOf(typeIndex, e.name);
        if (slot < 0) fail("unknown-relation", `'${d.name}' has no relation or permission '${e.name}'`, e);
        return { k: "slot", slot };
      }
      case "arrow": {
        const tupleset = slotOf(typeIndex, e.tupleset);
        if (tupleset < 0) fail("unknown-relation", `'${d.name}' has no relation '${e.tupleset}'`, e);
        const left = slots[tupleset]!;
        if (!left.stored) fail("arrow-over-permission", `the left side of '${e.tupleset}->${e.target}' must be a relation, '${e.tupleset}' is a permission`, e);
        const wildcard = wildcardReachedFrom(tupleset);
        if (wildcard) {
          fail(
            "arrow-over-wildcard",
            `for arrow under permission \`${permission}\`: relation \`${d.name}#${e.tupleset}\` includes wildcard type \`${wildcard.type}\` via relation \`${wildcard.via}\`: wildcard relations cannot be used on the left side of arrows`,
            e,
          );
        }
        // A target found on none of the subject types is valid (SpiceDB accepts it): the arrow is empty.
        const targetByType = new Int32Array(ast.definitions.length).fill(-1);
        for (const a of left.allowed) targetByType[a.typeIndex] = slotOf(a.typeIndex, e.target);
        return { k: "arrow", tupleset, targetByType, label: `${e.tupleset}->${e.target}` };
      }
      case "union":
      case "intersection": {
        const ops: Op[] = [];
        // Flatten chains of the same operator so evaluation loops instead of recursing.
        const collect = (x: ExpressionAst): void => {
          if (x.kind === e.kind) {
            collect(x.left);
            collect(x.right);
          } else ops.push(compileExpression(x, typeIndex, d));
        };
        collect(e);
        return { k: e.kind, ops };
      }
      case "exclusion":
        return { k: "exclusion", left: compileExpression(e.left, typeIndex, d), right: compileExpression(e.right, typeIndex, d) };
    }
  }

  const definitions: Definition[] = ast.definitions.map((d, index) => {
    const relations = new Map<string, RelationDef>();
    const permissions = new Map<string, PermissionDef>();
    for (const m of d.members) {
      const slot = slotOf(index, m.name);
      if (m.kind === "relation") relations.set(m.name, { kind: "relation", definition: d.name, name: m.name, slot, allowed: slots[slot]!.allowed });
      else permissions.set(m.name, { kind: "permission", definition: d.name, name: m.name, slot, expression: m.expression });
    }
    return { name: d.name, index, relations, permissions };
  });
  return new Model(definitions, slots, slotsByType);
}
