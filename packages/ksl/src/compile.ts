// The compiler entry: parse every input (.ksl source or .json IR), merge, apply extensions,
// check, then generate zed. Every phase reports into one list; zed is produced only when clean.
import { DiagnosticSink, KslError, sortDiagnostics, type KslDiagnostic } from "./diagnostics.js";
import type { NamespaceModule } from "./ir.js";
import { loadIrModule } from "./ir-json.js";
import { parseKsl } from "./parser.js";
import { applyExtensions, buildModel } from "./schema.js";
import { checkModel } from "./checks.js";
import { generateZed } from "./zed.js";
import type { SchemaAst } from "./zed-ast.js";

/** One compiler input. Files ending in `.json` are IR; everything else is KSL source. */
export interface KslSource {
  fileName: string;
  text: string;
}

export interface CompileResult {
  /** zed text; empty when there are errors. */
  zed: string;
  /** The zed schema object (what `zed` prints; the evaluator's `SchemaAst`); undefined when there are errors. */
  ast: SchemaAst | undefined;
  /** Every problem found, sorted by file and position. */
  errors: KslDiagnostic[];
}

export const isIrFile = (fileName: string): boolean => fileName.toLowerCase().endsWith(".json");

/** Parses one input into its namespace module (KSL or IR JSON). */
export function parseSource(source: KslSource): { module: NamespaceModule | undefined; errors: KslDiagnostic[] } {
  const sink = new DiagnosticSink();
  const module = isIrFile(source.fileName) ? loadIrModule(source.text, source.fileName, sink) : parseKsl(source.text, source.fileName, sink);
  return { module, errors: sortDiagnostics(sink.items) };
}

export function compile(sources: readonly KslSource[]): CompileResult {
  const sink = new DiagnosticSink();
  const modules: NamespaceModule[] = [];
  for (const source of sources) {
    const { module, errors } = parseSource(source);
    sink.items.push(...errors);
    if (module) modules.push(module);
  }
  const model = buildModel(modules, sink);
  applyExtensions(model, sink);
  checkModel(model, sink);
  if (sink.items.length > 0) return { zed: "", ast: undefined, errors: sortDiagnostics(sink.items) };
  const { ast, zed } = generateZed(model);
  return { zed, ast, errors: [] };
}

/** Like `compile`, but throws a `KslError` carrying every diagnostic. */
export function compileOrThrow(sources: readonly KslSource[]): { zed: string; ast: SchemaAst } {
  const result = compile(sources);
  if (result.errors.length > 0 || !result.ast) throw new KslError(result.errors);
  return { zed: result.zed, ast: result.ast };
}
