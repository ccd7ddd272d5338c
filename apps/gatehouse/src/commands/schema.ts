import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { compileSchema, SchemaError } from "@gatehouse/evaluator";
import { compile, formatDiagnostic, type KslSource, type SchemaAst } from "@gatehouse/ksl";
import { buildSchemaFromDirectory, CONFIG_LAYOUT, formatIssue, loadConfigDirectory, RoleConfigError } from "@gatehouse/role-config";

/** Exit codes: 0 clean, 1 the schema has errors, 2 an input could not be read or written. */
const EXIT_INVALID = 1;
const EXIT_IO = 2;

interface BuildOptions {
  output?: string;
  configDir?: string;
  json?: boolean;
}

/** Prints the command's result: the text line, or with --json the summary as one JSON document. */
function printResult(json: boolean | undefined, text: string, summary: Record<string, unknown>): void {
  process.stdout.write(json ? `${JSON.stringify(summary)}\n` : `${text}\n`);
}

/** `gatehouse schema build|check`: compile KSL (.ksl) and IR (.json) files to a zed schema. */
export function registerSchemaCommand(program: Command): void {
  const schema = program.command("schema").description("Compile KSL schema files (.ksl sources and .json IR) to a SpiceDB zed schema");

  schema
    .command("build")
    .description("Compile the files (or a configuration directory) and write the zed schema; errors are printed as 'file:line:col code message'")
    .argument("[files...]", ".ksl and .json files (all namespaces of the schema)")
    .option("-o, --output <file>", "zed file to write ('-' for stdout); default schema.zed, or the directory's schemas/schema.zed with --config-dir")
    .option("--config-dir <dir>", "a configuration directory in the role-configuration repository's layout (configs/<env>)")
    .option("--json", "print the summary as JSON: { output, definitions, files | configDir } (with '-o -' also { zed })")
    .action(async (files: string[], opts: BuildOptions) => {
      if (!usage(files, opts.configDir)) return;
      const output = opts.output ?? (opts.configDir ? join(opts.configDir, CONFIG_LAYOUT.schemaZed) : "schema.zed");
      const result = opts.configDir ? buildDirectory(opts.configDir) : await compileFiles(files, output === "-" ? "schema.zed" : output);
      if (!result) return;
      const source = opts.configDir ?? `${files.length} files`;
      const summary = { output, definitions: result.ast.definitions.length, ...(opts.configDir ? { configDir: opts.configDir } : { files: files.length }) };
      try {
        if (output === "-") {
          if (opts.json) printResult(true, "", { ...summary, zed: result.zed });
          else process.stdout.write(`${result.zed}\n`);
        } else await writeFile(output, result.zed);
      } catch (e) {
        process.stderr.write(`${output}: cannot write: ${(e as Error).message}\n`);
        process.exitCode = EXIT_IO;
        return;
      }
      if (output !== "-") printResult(opts.json, `wrote ${output} (${summary.definitions} definitions from ${source})`, summary);
    });

  schema
    .command("check")
    .description(
      "Compile the files and report every error as 'file:line:col code message' (exit 1 when there are any); with --config-dir also validate the whole directory and fail when its committed schema.zed is stale",
    )
    .argument("[files...]", ".ksl and .json files (all namespaces of the schema)")
    .option("--config-dir <dir>", "a configuration directory in the role-configuration repository's layout (configs/<env>)")
    .option("--json", "print the summary as JSON: { ok, files, definitions } (with --config-dir { ok, dir, applications, roles, definitions })")
    .action(async (files: string[], opts: { configDir?: string; json?: boolean }) => {
      if (!usage(files, opts.configDir)) return;
      if (opts.configDir) return checkDirectory(opts.configDir, opts.json);
      const result = await compileFiles(files, "schema.zed");
      if (!result) return;
      const summary = { ok: true, files: files.length, definitions: result.ast.definitions.length };
      printResult(opts.json, `ok: ${summary.files} files, ${summary.definitions} definitions`, summary);
    });
}

/** Exactly one of: files, or --config-dir. */
function usage(files: string[], configDir: string | undefined): boolean {
  if (files.length > 0 !== (configDir !== undefined)) return true;
  process.stderr.write("give either the .ksl/.json files or --config-dir <dir>, not both or neither\n");
  process.exitCode = EXIT_IO;
  return false;
}

function printConfigError(e: unknown): void {
  if (!(e instanceof RoleConfigError)) throw e;
  for (const issue of e.issues) process.stderr.write(`${formatIssue(issue)}\n`);
  process.stderr.write(`${e.issues.length} error${e.issues.length === 1 ? "" : "s"} in ${e.dir ?? "the configuration"}\n`);
  process.exitCode = e.issues.every((i) => i.code === "read-failed") ? EXIT_IO : EXIT_INVALID;
}

/** The directory's generated schema (rbac_v1_permissions.json generated, then KSL -> zed). */
function buildDirectory(dir: string): { zed: string; ast: SchemaAst } | undefined {
  try {
    const built = buildSchemaFromDirectory(dir);
    return { zed: built.zed, ast: built.ast };
  } catch (e) {
    printConfigError(e);
    return undefined;
  }
}

/** Validates everything in the directory and compares the committed schema.zed with a fresh build. */
function checkDirectory(dir: string, json: boolean | undefined): void {
  let config;
  try {
    config = loadConfigDirectory(dir);
  } catch (e) {
    printConfigError(e);
    return;
  }
  for (const w of config.warnings) process.stderr.write(`warning: ${formatIssue(w)}\n`);
  const committedFile = join(dir, CONFIG_LAYOUT.schemaZed);
  if (config.committedSchemaZed === undefined) {
    process.stderr.write(`${committedFile}: missing; run 'gatehouse schema build --config-dir ${dir}'\n`);
    process.exitCode = EXIT_INVALID;
    return;
  }
  const difference = firstDifference(config.schemaZed, config.committedSchemaZed);
  if (difference) {
    process.stderr.write(`${committedFile}: stale (${difference}); run 'gatehouse schema build --config-dir ${dir}'\n`);
    process.exitCode = EXIT_INVALID;
    return;
  }
  const summary = { ok: true, dir, applications: Object.keys(config.permissions).length, roles: config.roles.length, definitions: config.schemaAst.definitions.length };
  printResult(json, `ok: ${dir}: ${summary.applications} applications, ${summary.roles} roles, ${summary.definitions} definitions; ${CONFIG_LAYOUT.schemaZed} up to date`, summary);
}

/** Where a fresh build first differs from the committed text. */
function firstDifference(fresh: string, committed: string): string | undefined {
  if (fresh === committed) return undefined;
  const a = fresh.split("\n");
  const c = committed.split("\n");
  const line = a.findIndex((l, i) => l !== c[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(c[at] ?? "<end of file>")}, fresh build ${JSON.stringify(a[at] ?? "<end of file>")}`;
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
