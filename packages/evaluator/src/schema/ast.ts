// Syntax tree of a zed schema, with 1-based source positions for error reporting.

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
  /** `with expiration` (requires `use expiration`). */
  expiration?: boolean;
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
  /** Relations and permissions in source order. */
  members: Array<RelationAst | PermissionAst>;
}

export interface SchemaAst {
  fileName?: string;
  /** `use expiration` appeared at the top of the schema. */
  useExpiration?: boolean;
  definitions: DefinitionAst[];
}
