// zed generation and printing. The printer follows SpiceDB's generator, which is what produced the
// committed rbac-config schema.zed files: every permission body is the single child of a union,
// and a nested operation prints in parentheses unless it is made only of unions.
import type { RelationBody } from "./ir.js";
import { directTypes } from "./checks.js";
import { byName, type SchemaModel } from "./schema.js";
import type { AllowedSubjectAst, DefinitionAst, ExpressionAst, PermissionAst, RelationAst, SchemaAst } from "./zed-ast.js";

/** Stored relations carry the `t_` prefix; the KSL name is the permission. */
export const storedRelationName = (name: string): string => `t_${name}`;

const NO_POSITION = { line: 0, column: 0 };

function toExpression(body: RelationBody, relation: string): ExpressionAst {
  switch (body.kind) {
    case "self":
      return { kind: "ref", name: storedRelationName(relation), ...NO_POSITION };
    case "reference":
      return { kind: "ref", name: body.relation, ...NO_POSITION };
    case "nested_reference":
      return { kind: "arrow", tupleset: storedRelationName(body.relation), target: body.subRelation, ...NO_POSITION };
    default: {
      const kind = body.kind === "intersect" ? "intersection" : body.kind === "except" ? "exclusion" : "union";
      return { kind, left: toExpression(body.left, relation), right: toExpression(body.right, relation), ...NO_POSITION };
    }
  }
}

/**
 * Builds the zed schema (namespaces, types and relations in byte order; each permission followed
 * by its `t_` relation) and returns it with its text. Positions in the object point into the text.
 * Assumes a checked model.
 */
export function generateZed(model: SchemaModel): { ast: SchemaAst; zed: string } {
  const definitions: DefinitionAst[] = [];
  for (const ns of byName(model)) {
    for (const type of byName(ns.types)) {
      const members: Array<RelationAst | PermissionAst> = [];
      for (const rel of byName(type.relations)) {
        members.push({ kind: "permission", name: rel.name, expression: toExpression(rel.body, rel.name), ...NO_POSITION });
        const refs = directTypes(rel.body);
        if (refs.length === 0) continue;
        members.push({
          kind: "relation",
          name: storedRelationName(rel.name),
          allowed: refs.map((ref): AllowedSubjectAst => {
            const subjectType = `${ref.namespace ?? ns.name}/${ref.name}`;
            if (ref.all) return { type: subjectType, wildcard: true, ...NO_POSITION };
            return ref.subRelation === undefined ? { type: subjectType, wildcard: false, ...NO_POSITION } : { type: subjectType, relation: ref.subRelation, wildcard: false, ...NO_POSITION };
          }),
          ...NO_POSITION,
        });
      }
      definitions.push({ name: `${ns.name}/${type.name}`, members, ...NO_POSITION });
    }
  }
  const ast: SchemaAst = { definitions };
  const zed = printZed(ast, { assignPositions: true });
  return { ast, zed };
}

const OPERATOR = { union: "+", intersection: "&", exclusion: "-" } as const;

/** SpiceDB's `isAllUnion`: a union whose nested operations are all unions prints without parentheses. */
function isAllUnion(e: ExpressionAst): boolean {
  if (e.kind !== "union") return false;
  return [e.left, e.right].every((c) => c.kind === "ref" || c.kind === "arrow" || c.kind === "nil" || isAllUnion(c));
}

/** Appends text while tracking the column, optionally stamping node positions as they are printed. */
class LineWriter {
  text = "";
  constructor(
    private readonly line: number,
    private readonly startColumn: number,
    private readonly stamp: boolean,
  ) {}
  mark(node: { line: number; column: number }): void {
    if (!this.stamp) return;
    node.line = this.line;
    node.column = this.startColumn + this.text.length;
  }
  write(s: string): void {
    this.text += s;
  }
}

function printOperands(e: Extract<ExpressionAst, { left: ExpressionAst }>, out: LineWriter): void {
  printChild(e.left, out);
  out.write(` ${OPERATOR[e.kind]} `);
  printChild(e.right, out);
}

function printChild(e: ExpressionAst, out: LineWriter): void {
  out.mark(e);
  switch (e.kind) {
    case "ref":
      return out.write(e.name);
    case "arrow":
      return out.write(`${e.tupleset}->${e.target}`);
    case "nil":
      return out.write("nil");
    default:
      if (isAllUnion(e)) return printOperands(e, out);
      out.write("(");
      printOperands(e, out);
      out.write(")");
  }
}

/** Prints one permission expression as the single child of the body's implicit union. */
export function printExpression(e: ExpressionAst): string {
  const out = new LineWriter(0, 0, false);
  printChild(e, out);
  return out.text;
}

function printAllowed(s: AllowedSubjectAst): string {
  if (s.wildcard) return `${s.type}:*`;
  return s.relation === undefined ? s.type : `${s.type}#${s.relation}`;
}

/**
 * zed text: tab-indented members, definitions separated by a blank line, no trailing newline.
 * With `assignPositions`, every node's line/column is set to where it appears in the text.
 */
export function printZed(schema: SchemaAst, options: { assignPositions?: boolean } = {}): string {
  const stamp = options.assignPositions === true;
  const blocks: string[] = [];
  let line = 1;
  for (const d of schema.definitions) {
    if (stamp) Object.assign(d, { line, column: 1 });
    if (d.members.length === 0) {
      blocks.push(`definition ${d.name} {}`);
      line += 2;
      continue;
    }
    const lines = [`definition ${d.name} {`];
    for (const m of d.members) {
      line++;
      if (stamp) Object.assign(m, { line, column: 2 });
      if (m.kind === "permission") {
        const prefix = `\tpermission ${m.name} = `;
        const out = new LineWriter(line, prefix.length + 1, stamp);
        printChild(m.expression, out);
        lines.push(prefix + out.text);
      } else {
        const prefix = `\trelation ${m.name}: `;
        let column = prefix.length + 1;
        const parts = m.allowed.map((s) => {
          if (stamp) Object.assign(s, { line, column });
          const text = printAllowed(s);
          column += text.length + 3;
          return text;
        });
        lines.push(prefix + parts.join(" | "));
      }
    }
    lines.push("}");
    blocks.push(lines.join("\n"));
    line += 3; // closing brace, blank line, next definition
  }
  return blocks.join("\n\n");
}
