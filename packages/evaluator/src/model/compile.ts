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
      const allowed: AllowedSubject[] = m.allowed.map((a) => {
        const subjectIndex = indexByType.get(a.type);
        if (subjectIndex === undefined) return fail("unknown-type", `unknown type '${a.type}' in relation '${d.name}#${m.name}'`, a);
        if (a.relation !== undefined && slotOf(subjectIndex, a.relation) < 0) {
          fail("unknown-relation", `'${a.type}' has no relation or permission '${a.relation}'`, a);
        }
        const out: AllowedSubject = { type: a.type, typeIndex: subjectIndex, wildcard: a.wildcard };
        if (a.relation !== undefined) out.relation = a.relation;
        return out;
      });
      slots[slotOf(typeIndex, m.name)]!.allowed = allowed;
    }
  }

  // Pass 3: permission expressions.
  for (const [typeIndex, d] of ast.definitions.entries()) {
    for (const m of d.members) {
      if (m.kind === "permission") slots[slotOf(typeIndex, m.name)]!.op = compileExpression(m.expression, typeIndex, d);
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
        if (left.allowed.some((a) => a.wildcard)) fail("arrow-over-wildcard", `'${e.tupleset}' allows a wildcard and cannot be used in an arrow`, e);
        const targetByType = new Int32Array(ast.definitions.length).fill(-1);
        for (const a of left.allowed) targetByType[a.typeIndex] = slotOf(a.typeIndex, e.target);
        if (!left.allowed.some((a) => targetByType[a.typeIndex]! >= 0)) {
          fail("unknown-relation", `no subject type of '${d.name}#${e.tupleset}' has '${e.target}'`, e);
        }
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
