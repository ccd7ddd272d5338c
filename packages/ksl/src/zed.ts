// zed generation: the model becomes a zed schema object, printed exactly like SpiceDB's generator
// prints what the reference compiler builds (so output matches committed schema.zed files byte for byte).
import type { RelationBody } from "./ir.js";
import { directTypes } from "./checks.js";
import { byName, type SchemaModel } from "./schema.js";

export type ZedExpression =
  | { kind: "computed"; relation: string }
  | { kind: "arrow"; tupleset: string; computed: string }
  | { kind: "union" | "intersection" | "exclusion"; children: ZedExpression[] };

export interface ZedSubjectType {
  type: string;
  relation?: string;
  wildcard?: boolean;
}

export type ZedMember =
  | { kind: "permission"; name: string; expression: ZedExpression }
  | { kind: "relation"; name: string; subjects: ZedSubjectType[] };

export interface ZedDefinition {
  name: string;
  members: ZedMember[];
}

export interface ZedSchema {
  definitions: ZedDefinition[];
}

/** Stored relations carry the `t_` prefix; the KSL name is the permission. */
export const storedRelationName = (name: string): string => `t_${name}`;

function toExpression(body: RelationBody, relation: string): ZedExpression {
  switch (body.kind) {
    case "self":
      return { kind: "computed", relation: storedRelationName(relation) };
    case "reference":
      return { kind: "computed", relation: body.relation };
    case "nested_reference":
      return { kind: "arrow", tupleset: storedRelationName(body.relation), computed: body.subRelation };
    case "union":
      return { kind: "union", children: [toExpression(body.left, relation), toExpression(body.right, relation)] };
    case "intersect":
      return { kind: "intersection", children: [toExpression(body.left, relation), toExpression(body.right, relation)] };
    case "except":
      return { kind: "exclusion", children: [toExpression(body.left, relation), toExpression(body.right, relation)] };
  }
}

/** Builds the zed schema: namespaces, types and relations in byte order. Assumes a checked model. */
export function generateZedSchema(model: SchemaModel): ZedSchema {
  const definitions: ZedDefinition[] = [];
  for (const ns of byName(model)) {
    for (const type of byName(ns.types)) {
      const members: ZedMember[] = [];
      for (const rel of byName(type.relations)) {
        // Each body is wrapped in a one-child union, as the reference compiler does.
        members.push({ kind: "permission", name: rel.name, expression: { kind: "union", children: [toExpression(rel.body, rel.name)] } });
        const refs = directTypes(rel.body);
        if (refs.length > 0) {
          members.push({
            kind: "relation",
            name: storedRelationName(rel.name),
            subjects: refs.map((ref) => {
              const subjectType = `${ref.namespace ?? ns.name}/${ref.name}`;
              if (ref.all) return { type: subjectType, wildcard: true };
              return ref.subRelation === undefined ? { type: subjectType } : { type: subjectType, relation: ref.subRelation };
            }),
          });
        }
      }
      definitions.push({ name: `${ns.name}/${type.name}`, members });
    }
  }
  return { definitions };
}

const OPERATOR = { union: "+", intersection: "&", exclusion: "-" } as const;

/** A rewrite made only of unions prints without parentheses (SpiceDB generator rule). */
function isAllUnion(e: ZedExpression): boolean {
  if (e.kind !== "union") return false;
  return e.children.every((c) => (c.kind === "computed" || c.kind === "arrow" ? true : isAllUnion(c)));
}

function printOperation(e: Extract<ZedExpression, { children: ZedExpression[] }>): string {
  return e.children.map(printChild).join(` ${OPERATOR[e.kind]} `);
}

function printChild(e: ZedExpression): string {
  switch (e.kind) {
    case "computed":
      return e.relation;
    case "arrow":
      return `${e.tupleset}->${e.computed}`;
    default:
      return isAllUnion(e) ? printOperation(e) : `(${printOperation(e)})`;
  }
}

/** Prints a permission expression (top-level operations print like children of the implicit union). */
export function printExpression(e: ZedExpression): string {
  return e.kind === "union" ? printOperation(e) : printChild(e);
}

function printSubject(s: ZedSubjectType): string {
  if (s.wildcard) return `${s.type}:*`;
  return s.relation === undefined ? s.type : `${s.type}#${s.relation}`;
}

/** zed text: tab-indented members, definitions separated by a blank line, no trailing newline. */
export function printZed(schema: ZedSchema): string {
  return schema.definitions
    .map((d) => {
      if (d.members.length === 0) return `definition ${d.name} {}`;
      const lines = d.members.map((m) =>
        m.kind === "permission"
          ? `\tpermission ${m.name} = ${printExpression(m.expression)}`
          : `\trelation ${m.name}: ${m.subjects.map(printSubject).join(" | ")}`,
      );
      return `definition ${d.name} {\n${lines.join("\n")}\n}`;
    })
    .join("\n\n");
}
