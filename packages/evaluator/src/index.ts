// Public entry of @gatehouse/evaluator: a pure (no I/O, no Node APIs) zed schema parser, compiled
// model, in-memory relationship graph and the check / lookup / explain algorithms over it.
export { EvaluatorError, SchemaError, EvaluationError, type EvaluatorErrorCode } from "./errors.js";
export {
  formatRelationship,
  parseRelationship,
  formatSubject,
  isValidObjectId,
  WILDCARD_ID,
  type Relationship,
  type ObjectRef,
  type SubjectRef,
} from "./relationship.js";
export type { SchemaAst, DefinitionAst, RelationAst, PermissionAst, ExpressionAst, AllowedSubjectAst } from "./schema/ast.js";
export { parseSchema } from "./schema/parser.js";
export { compileSchema } from "./model/compile.js";
export { Model, type Definition, type RelationDef, type PermissionDef, type AllowedSubject } from "./model/model.js";
export { RelationshipGraph, type GraphArrays } from "./graph/relationship-graph.js";
export { encodeGraph, decodeGraph, GRAPH_CODEC_VERSION, type DecodeOptions, type EncodeOptions } from "./graph/graph-codec.js";
export type { NodeRoom } from "./graph/node-table.js";
export { check, type CheckOptions } from "./eval/check.js";
export { configureCheckCache, checkCacheStats, DEFAULT_CHECK_CACHE_LIMITS, type CheckCacheLimits, type CheckCacheStats } from "./eval/closure-cache.js";
export { DEFAULT_MAX_DEPTH } from "./eval/evaluation.js";
export { lookupResourceIds, lookupResources } from "./eval/lookup-resources.js";
export { type IdsInOrder, SortedIdList } from "./eval/ids-in-order.js";
export { lookupSubjects, type SubjectsResult } from "./eval/lookup-subjects.js";
export { explain, type Explanation, type ExplainNode, type ExplainKind } from "./eval/explain.js";
