// The evaluator's error class. Every failure carries a stable kebab-case code so transports can
// map it in one place; schema errors also carry the 1-based line and column of the offending token.

export type EvaluatorErrorCode =
  // schema text and model
  | "unexpected-character"
  | "unterminated-comment"
  | "unexpected-token"
  | "unsupported-syntax"
  | "unsupported-caveat"
  | "unsupported-use"
  | "unsupported-arrow-function"
  | "unsupported-self"
  | "expiration-not-enabled"
  | "duplicate-allowed-subject"
  | "transitive-wildcard"
  | "invalid-name"
  | "duplicate-definition"
  | "duplicate-relation"
  | "unknown-type"
  | "unknown-relation"
  | "arrow-over-permission"
  | "arrow-over-wildcard"
  // relationships
  | "invalid-relationship"
  | "invalid-object-id"
  | "write-to-permission"
  | "subject-type-not-allowed"
  | "expiration-not-allowed"
  // evaluation
  | "unknown-permission"
  | "wildcard-subject"
  | "max-depth-exceeded";

export class EvaluatorError extends Error {
  readonly code: EvaluatorErrorCode;

  constructor(code: EvaluatorErrorCode, message: string) {
    super(message);
    this.name = "EvaluatorError";
    this.code = code;
  }
}

/** A malformed or invalid schema; `line`/`column` are 1-based (0 when no position applies). */
export class SchemaError extends EvaluatorError {
  readonly line: number;
  readonly column: number;
  readonly fileName: string | undefined;

  constructor(code: EvaluatorErrorCode, message: string, line: number, column: number, fileName?: string) {
    const where = line > 0 ? `${fileName ?? "schema"}:${line}:${column}: ` : "";
    super(code, `${where}${message}`);
    this.name = "SchemaError";
    this.line = line;
    this.column = column;
    this.fileName = fileName;
  }
}

/** A bad relationship, a bad request or an evaluation that cannot give a sound answer (cycles, depth). */
export class EvaluationError extends EvaluatorError {
  constructor(code: EvaluatorErrorCode, message: string) {
    super(code, message);
    this.name = "EvaluationError";
  }
}
