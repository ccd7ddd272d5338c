// The zed schema object is the evaluator's own syntax tree, so `compileSchema(ast)` takes the
// compiler's output directly, with positions that point into the generated zed text.
export type {
  SchemaAst,
  DefinitionAst,
  RelationAst,
  PermissionAst,
  ExpressionAst,
  AllowedSubjectAst,
} from "@gatehouse/evaluator";
