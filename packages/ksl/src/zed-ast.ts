// The zed schema object the generator produces. It has the same shape as the evaluator's
// `SchemaAst` (packages/evaluator/src/schema/ast.ts), so `compileSchema(ast)` takes it directly.
// Mirrored structurally here because the evaluator's public entry does not export the type yet.

export interface Position {
  line: number;
  column: number;
}

export interface AllowedSubjectAst extends Position {
  type: string;
  /** `T#rel`: a subject set. */
  relation?: string;
  /** `T:*`: the public wildcard of T. */
  wildcard: boolean;
}

export type ExpressionAst =
  | ({ kind: "union" | "intersection" | "exclusion"; left: ExpressionAst; right: ExpressionAst } & Position)
  | ({ kind: "ref"; name: string } & Position)
  | ({ kind: "arrow"; tupleset: string; target: string } & Position)
  | ({ kind: "nil" } & Position);

export interface RelationAst extends Position {
  kind: "relation";
  name: string;
  allowed: AllowedSubjectAst[];
}

export interface PermissionAst extends Position {
  kind: "permission";
  name: string;
  expression: ExpressionAst;
}

export interface DefinitionAst extends Position {
  name: string;
  /** Relations and permissions in output order. */
  members: Array<RelationAst | PermissionAst>;
}

export interface SchemaAst {
  fileName?: string;
  definitions: DefinitionAst[];
}
