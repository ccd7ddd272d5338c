// Diagnostics: every problem the compiler finds carries a stable code and a source position.

/** Stable, kebab-case codes of every diagnostic the KSL compiler can report. */
export const KSL_ERROR_CODES = [
  // lexical
  "unexpected-character",
  "block-comment",
  "invalid-number",
  // syntax
  "syntax-error",
  "invalid-argument-value",
  // intermediate-representation (.json) inputs
  "invalid-ir",
  // declarations and names
  "duplicate-namespace",
  "duplicate-type",
  "duplicate-relation",
  "duplicate-extension",
  "duplicate-argument",
  "unknown-namespace",
  "namespace-not-imported",
  // extensions
  "unknown-extension",
  "extension-not-visible",
  "missing-extension-argument",
  "invalid-generated-name",
  // semantic checks
  "unknown-type",
  "type-not-visible",
  "unknown-relation",
  "unknown-subject-relation",
  "invalid-traversal",
  "traversal-without-direct-types",
] as const;

export type KslErrorCode = (typeof KSL_ERROR_CODES)[number];

/** Position of a diagnostic: 1-based line and column in `file`. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export interface KslDiagnostic extends SourceLocation {
  code: KslErrorCode;
  message: string;
}

/** `file:line:col code message`, the one-line form used by the CLI. */
export function formatDiagnostic(d: KslDiagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`;
}

/** Orders diagnostics by file, then position, so output is stable whatever order checks ran in. */
export function sortDiagnostics(diagnostics: readonly KslDiagnostic[]): KslDiagnostic[] {
  return [...diagnostics].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column);
}

/** The single error class of this package; thrown by the `...OrThrow` helpers, carries all diagnostics. */
export class KslError extends Error {
  readonly code: KslErrorCode;
  readonly diagnostics: readonly KslDiagnostic[];

  constructor(diagnostics: readonly KslDiagnostic[]) {
    const first = diagnostics[0];
    const summary = first ? formatDiagnostic(first) : "unknown KSL error";
    const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : "";
    super(`${summary}${more}`);
    this.name = "KslError";
    this.code = first?.code ?? "syntax-error";
    this.diagnostics = diagnostics;
  }
}

/** Collects diagnostics across compiler phases. */
export class DiagnosticSink {
  readonly items: KslDiagnostic[] = [];

  report(code: KslErrorCode, at: SourceLocation, message: string): void {
    this.items.push({ code, file: at.file, line: at.line, column: at.column, message });
  }
}
