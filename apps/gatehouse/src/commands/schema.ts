import { readFile, writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { compileSchema, SchemaError } from "@gatehouse/evaluator";
import { compile, formatDiagnostic, type KslSource, type SchemaAst } from "@gatehouse/ksl";

/** Exit codes: 0 clean, 1 the schema has errors, 2 an input could not be read or written. */
const EXIT_INVALID = 1;
const EXIT_IO = 2;

interface BuildOptions {
  output: string;
}

/** `gatehouse schema build|check`: compile KSL (.ksl) and IR (.json) files to a zed schema. */
export function registerSchemaCommand(program: Command): void {
  const schema = program.command("schema").description("Compile KSL schema files (.ksl sources and .json IR) to a SpiceDB zed schema");

  schema
    .command("build")
    .description("Compile the files and write the zed schema; errors are printed as 'file:line:col code message'")
    .argument("<files...>", ".ksl and .json files (all namespaces of the schema)")
    .option("-o, --output <file>", "zed file to write ('-' for stdout)", "schema.zed")
    .action(async (files: string[], opts: BuildOptions) => {
      const result = await compileFiles(files, opts.output === "-" ? "schema.zed" : opts.output);
      if (!result) return;
      try {
        if (opts.output === "-") process.stdout.write(`${result.zed}\n`);
        else await writeFile(opts.output, result.zed);
      } catch (e) {
        process.stderr.write(`${opts.output}: cannot write: ${(e as Error).message}\n`);
        process.exitCode = EXIT_IO;
        return;
      }
      if (opts.output !== "-") process.stdout.write(`wrote ${opts.output} (${result.ast.definitions.length} definitions from ${files.length} files)\n`);
    });

  schema
    .command("check")
    .description("Compile the files and report every error as 'file:line:col code message' (exit 1 when there are any)")
    .argument("<files...>", ".ksl and .json files (all namespaces of the schema)")
    .action(async (files: string[]) => {
      const result = await compileFiles(files, "schema.zed");
      if (result) process.stdout.write(`ok: ${files.length} files, ${result.ast.definitions.length} definitions\n`);
    });
}

/**
 * Reads and compiles the files, then has the evaluator validate the result (SpiceDB naming rules
 * that KSL itself does not check). Prints every problem and sets the exit code; undefined on failure.
 */
async function compileFiles(files: string[], zedName: string): Promise<{ zed: string; ast: SchemaAst } | undefined> {
  const sources: KslSource[] = [];
  let unreadable = false;
  for (const fileName of files) {
    try {
      sources.push({ fileName, text: await readFile(fileName, "utf8") });
    } catch (e) {
      process.stderr.write(`${fileName}: cannot read: ${(e as Error).message}\n`);
      unreadable = true;
    }
  }
  if (unreadable) {
    process.exitCode = EXIT_IO;
    return undefined;
  }
  const result = compile(sources);
  if (!result.ast) {
    for (const d of result.errors) process.stderr.write(`${formatDiagnostic(d)}\n`);
    process.stderr.write(`${result.errors.length} error${result.errors.length === 1 ? "" : "s"}\n`);
    process.exitCode = EXIT_INVALID;
    return undefined;
  }
  const ast: SchemaAst = { ...result.ast, fileName: zedName };
  try {
    compileSchema(ast);
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    // Positions point into the generated zed text.
    const prefix = `${zedName}:${e.line}:${e.column}: `;
    const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    process.stderr.write(`${zedName}:${e.line}:${e.column} ${e.code} ${message}\n1 error\n`);
    process.exitCode = EXIT_INVALID;
    return undefined;
  }
  return { zed: result.zed, ast };
}
