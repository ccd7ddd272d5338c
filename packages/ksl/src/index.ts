// Public entry of @gatehouse/ksl: the KSL compiler (KSL/IR inputs -> zed schema object and text).
export { compile, compileOrThrow, parseSource, isIrFile } from "./compile.js";
export type { KslSource, CompileResult } from "./compile.js";
export { KslError, KSL_ERROR_CODES, formatDiagnostic, sortDiagnostics } from "./diagnostics.js";
export type { KslDiagnostic, KslErrorCode, SourceLocation } from "./diagnostics.js";
export { printZed, printExpression, storedRelationName } from "./zed.js";
export type {
  SchemaAst,
  DefinitionAst,
  RelationAst,
  PermissionAst,
  ExpressionAst,
  AllowedSubjectAst,
} from "./zed-ast.js";
export type {
  NamespaceModule,
  TypeDecl,
  RelationDecl,
  RelationBody,
  TypeReference,
  ExtensionReference,
  ExtensionDefinition,
  DynamicName,
  DynamicBody,
  DynamicType,
  DynamicRelation,
  Visibility,
  Cardinality,
} from "./ir.js";
