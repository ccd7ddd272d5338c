// Loads one configuration directory in the role-configuration repository's layout
// (`configs/<env>/`): permissions/<app>.json, roles/*.json, schemas/src/*.ksl,
// schemas/migrated_apps.lst, schemas/hostsonly_apps.lst and optionally the committed
// schemas/schema.zed. JSON files are validated against the repository's JSON Schemas
// (`<repo>/schemas/{roles,permissions}.schema`, this package's own when the repository has none);
// every problem is collected and thrown at once, each naming its file and JSON path.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compile, type KslSource, type SchemaAst } from "@gatehouse/ksl";
import { RoleConfigError, type RoleConfigErrorCode, type RoleConfigIssue } from "./errors.js";
import { JsonSchemaValidator } from "./json-schema.js";
import type { PermissionCatalogue, RoleDefinition } from "./schemas.js";
import { cataloguePermissions, generateV1OnlyPermissions, parseAppList, V1_ONLY_PERMISSIONS_FILE, v1PermissionRelation, type PermissionFile } from "./v1-permissions.js";

/** This package's root (one level above both `src/` and `dist/`). */
export const packageRoot = fileURLToPath(new URL("../", import.meta.url));

/** Which configuration is active: a digest of every input file, where it came from, and when. */
export interface ConfigIdentity {
  /** sha256 (hex) over the relative path and bytes of every input file, in path order. */
  hash: string;
  dir: string;
  loadedAt: Date;
}

export interface RoleConfig {
  /** Name of the configuration (the directory's name: `stage`, `prod`, ...). */
  env: string;
  /** Generated zed text (what `schemas/schema.zed` must contain). */
  schemaZed: string;
  /** The schema object the evaluator compiles directly. */
  schemaAst: SchemaAst;
  roles: RoleDefinition[];
  permissions: PermissionCatalogue;
  /** Applications whose permissions are modelled in KSL; the others get assignable V1-only relations. */
  migratedApps: string[];
  hostsOnlyApps: string[];
  /** The generated `rbac_v1_permissions.json` (an input of the KSL build). */
  v1OnlyPermissions: string;
  /** The committed `schemas/schema.zed`, when the directory has one. */
  committedSchemaZed?: string;
  /** Where the JSON Schemas came from: the directory's repository or this package. */
  jsonSchemas: "repository" | "built-in";
  /** Problems that do not stop the load (e.g. a migrated application's permission no KSL models). */
  warnings: RoleConfigIssue[];
  identity: ConfigIdentity;
}

/** Paths inside a configuration directory. */
export const CONFIG_LAYOUT = {
  permissions: "permissions",
  roles: "roles",
  ksl: "schemas/src",
  migratedApps: "schemas/migrated_apps.lst",
  hostsOnlyApps: "schemas/hostsonly_apps.lst",
  schemaZed: "schemas/schema.zed",
} as const;

class Reader {
  readonly issues: RoleConfigIssue[] = [];
  /** Not errors: the reference toolchain accepts them too. */
  readonly warnings: RoleConfigIssue[] = [];
  /** Relative path -> bytes of every file read (the identity digest covers them). */
  readonly inputs = new Map<string, string>();

  constructor(
    readonly dir: string,
    /** Prefix of file names in messages (the directory's name). */
    readonly label: string,
  ) {}

  add(code: RoleConfigErrorCode, file: string, path: string, message: string): void {
    this.issues.push({ code, file: this.name(file), path, message });
  }

  warn(code: RoleConfigErrorCode, file: string, path: string, message: string): void {
    this.warnings.push({ code, file: this.name(file), path, message });
  }

  name(rel: string): string {
    return `${this.label}/${rel}`;
  }

  list(rel: string, extension: string, required = true): string[] {
    try {
      return readdirSync(join(this.dir, rel))
        .filter((f) => f.endsWith(extension))
        .sort();
    } catch (e) {
      if (required) this.add("read-failed", rel, "$", `cannot list files: ${(e as Error).message}`);
      return [];
    }
  }

  text(rel: string, options: { optional?: boolean } = {}): string | undefined {
    const file = join(this.dir, rel);
    if (options.optional && !existsSync(file)) return undefined;
    try {
      const text = readFileSync(file, "utf8");
      this.inputs.set(rel, text);
      return text;
    } catch (e) {
      this.add("read-failed", rel, "$", (e as Error).message);
      return undefined;
    }
  }

  json(rel: string, validator: JsonSchemaValidator, code: RoleConfigErrorCode): unknown {
    const text = this.text(rel);
    if (text === undefined) return undefined;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      this.add("invalid-json", rel, "$", (e as Error).message);
      return undefined;
    }
    const violations = validator.violations(data);
    for (const v of violations) this.add(code, rel, v.path, v.message);
    return violations.length === 0 ? data : undefined;
  }

  throwIfAny(): void {
    if (this.issues.length > 0) throw new RoleConfigError(this.issues, this.dir);
  }
}

/** `<repo>/schemas/<name>` for `<repo>/configs/<env>`, else this package's own. */
function jsonSchemas(dir: string): { roles: JsonSchemaValidator; permissions: JsonSchemaValidator; source: "repository" | "built-in" } {
  const repoSchemas = resolve(dir, "../../schemas");
  const fromRepo = existsSync(join(repoSchemas, "roles.schema")) && existsSync(join(repoSchemas, "permissions.schema"));
  const base = fromRepo ? repoSchemas : join(packageRoot, "schemas");
  const read = (name: string): JsonSchemaValidator => {
    const file = join(base, name);
    try {
      return new JsonSchemaValidator(JSON.parse(readFileSync(file, "utf8")) as object);
    } catch (e) {
      throw new RoleConfigError([{ code: "read-failed", file, path: "$", message: `unusable JSON Schema: ${(e as Error).message}` }], dir);
    }
  };
  return { roles: read("roles.schema"), permissions: read("permissions.schema"), source: fromRepo ? "repository" : "built-in" };
}

interface SchemaBuild {
  reader: Reader;
  catalogue: PermissionCatalogue;
  migratedApps: string[];
  hostsOnlyApps: string[];
  v1OnlyPermissions: string;
  /** Present when every input was valid and the KSL compiled. */
  compiled?: { zed: string; ast: SchemaAst };
  committedSchemaZed?: string;
  validators: ReturnType<typeof jsonSchemas>;
}

/** Reads and compiles the schema inputs; problems are collected in the reader, not thrown. */
function buildFromDirectory(dirInput: string): SchemaBuild {
  const dir = resolve(dirInput);
  const reader = new Reader(dir, basename(dir));
  if (!existsSync(dir)) {
    reader.add("read-failed", "", "$", `configuration directory ${dir} does not exist`);
    reader.throwIfAny();
  }
  const validators = jsonSchemas(dir);

  const catalogue: PermissionCatalogue = {};
  const files: PermissionFile[] = [];
  const permissionFiles = reader.list(CONFIG_LAYOUT.permissions, ".json");
  for (const name of permissionFiles) {
    const data = reader.json(`${CONFIG_LAYOUT.permissions}/${name}`, validators.permissions, "invalid-permission-file") as PermissionCatalogue[string] | undefined;
    if (!data) continue;
    const app = name.slice(0, -".json".length);
    catalogue[app] = data;
    files.push({ app, resources: data });
  }

  const appList = (rel: string, optional: boolean): string[] => {
    const text = reader.text(rel, { optional });
    const apps = text === undefined ? [] : parseAppList(text);
    apps.forEach((app, i) => {
      // An invalid permission file is reported already.
      if (app !== "" && !permissionFiles.includes(`${app}.json`)) reader.add("invalid-app-list", rel, `line ${i + 1}`, `'${app}' has no permissions/${app}.json`);
    });
    return apps;
  };
  const migratedApps = appList(CONFIG_LAYOUT.migratedApps, false);
  const hostsOnlyApps = appList(CONFIG_LAYOUT.hostsOnlyApps, true);

  const sources: KslSource[] = [];
  for (const name of reader.list(CONFIG_LAYOUT.ksl, ".ksl")) {
    const rel = `${CONFIG_LAYOUT.ksl}/${name}`;
    const text = reader.text(rel);
    if (text !== undefined) sources.push({ fileName: reader.name(rel), text });
  }
  const committedSchemaZed = existsSync(join(dir, CONFIG_LAYOUT.schemaZed)) ? readFileSync(join(dir, CONFIG_LAYOUT.schemaZed), "utf8") : undefined;
  const v1OnlyPermissions = generateV1OnlyPermissions(files, migratedApps, hostsOnlyApps);
  const base = { reader, catalogue, migratedApps, hostsOnlyApps, v1OnlyPermissions, validators, ...(committedSchemaZed !== undefined ? { committedSchemaZed } : {}) };
  // Compiling an incomplete catalogue would only repeat the problems above as schema errors.
  if (reader.issues.length > 0) return base;

  sources.push({ fileName: reader.name(`${CONFIG_LAYOUT.ksl}/${V1_ONLY_PERMISSIONS_FILE}`), text: v1OnlyPermissions });
  const result = compile(sources);
  for (const d of result.errors) reader.issues.push({ code: "schema-compile-failed", file: d.file, path: `${d.line}:${d.column}`, message: `${d.code} ${d.message}` });
  return result.ast && result.errors.length === 0 ? { ...base, compiled: { zed: result.zed, ast: result.ast } } : base;
}

/** The generated zed text of a configuration directory (what `schemas/schema.zed` must contain). */
export function buildSchemaFromDirectory(dir: string): { zed: string; ast: SchemaAst; committed?: string; v1OnlyPermissions: string } {
  const built = buildFromDirectory(dir);
  built.reader.throwIfAny();
  return { zed: built.compiled!.zed, ast: built.compiled!.ast, v1OnlyPermissions: built.v1OnlyPermissions, ...(built.committedSchemaZed !== undefined ? { committed: built.committedSchemaZed } : {}) };
}

/** Loads and validates a whole configuration directory; throws a RoleConfigError listing every problem. */
export function loadConfigDirectory(dirInput: string, now: () => Date = () => new Date()): RoleConfig {
  const build = buildFromDirectory(dirInput);
  const { reader, catalogue, compiled } = build;
  const roles: LocatedRole[] = [];
  for (const name of reader.list(CONFIG_LAYOUT.roles, ".json")) {
    const rel = `${CONFIG_LAYOUT.roles}/${name}`;
    const data = reader.json(rel, build.validators.roles, "invalid-role-file") as { roles: Array<Partial<RoleDefinition>> } | undefined;
    data?.roles.forEach((role, index) => roles.push({ role: withDefaults(role), file: rel, index }));
  }
  // Without a schema only the file-level problems can be reported.
  if (compiled) {
    const relations = roleRelations(compiled.ast);
    checkRoles(reader, roles, catalogue, relations);
    checkMigratedAppsModelled(reader, catalogue, build.migratedApps, relations);
  }
  reader.throwIfAny();
  return {
    env: basename(reader.dir),
    schemaZed: compiled!.zed,
    schemaAst: compiled!.ast,
    roles: roles.map((r) => r.role),
    permissions: catalogue,
    migratedApps: build.migratedApps,
    hostsOnlyApps: build.hostsOnlyApps,
    v1OnlyPermissions: build.v1OnlyPermissions,
    ...(build.committedSchemaZed !== undefined ? { committedSchemaZed: build.committedSchemaZed } : {}),
    jsonSchemas: build.validators.source,
    warnings: reader.warnings,
    identity: { hash: digest(reader.inputs), dir: reader.dir, loadedAt: now() },
  };
}

function digest(inputs: Map<string, string>): string {
  const hash = createHash("sha256");
  for (const rel of [...inputs.keys()].sort()) hash.update(`${rel}\0${inputs.get(rel)!}\0`);
  return hash.digest("hex");
}

/** insights-rbac's defaults for optional role fields. */
function withDefaults(role: Partial<RoleDefinition>): RoleDefinition {
  return { platform_default: false, admin_default: false, ...role } as RoleDefinition;
}

interface LocatedRole {
  role: RoleDefinition;
  file: string;
  index: number;
}

/** Names of the relations on `rbac/role` (what a V1 permission must map to). */
function roleRelations(ast: SchemaAst): Set<string> {
  const role = ast.definitions.find((d) => d.name === "rbac/role");
  return new Set(role?.members.filter((m) => m.kind === "permission").map((m) => m.name) ?? []);
}

function checkRoles(reader: Reader, roles: LocatedRole[], catalogue: PermissionCatalogue, relations: Set<string>): void {
  const seen = new Map<string, string>();
  for (const { role, file, index } of roles) {
    const at = `$.roles[${index}]`;
    const prior = seen.get(role.name.toLowerCase());
    if (prior) reader.add("duplicate-role", file, `${at}.name`, `role '${role.name}' is already defined in ${prior}`);
    else seen.set(role.name.toLowerCase(), `${reader.name(file)} ${at}`);
    role.access?.forEach((entry, i) => {
      const path = `${at}.access[${i}].permission`;
      const [app, resource, verb] = entry.permission.split(":") as [string, string, string];
      const problem = catalogueProblem(catalogue, app, resource, verb);
      if (problem) {
        reader.add("unknown-permission", file, path, `'${entry.permission}': ${problem}`);
        return;
      }
      const relation = v1PermissionRelation(entry.permission);
      if (!relations.has(relation)) {
        reader.add("unmapped-permission", file, path, `'${entry.permission}' maps to 'rbac/role#${relation}', which the ${reader.label} schema does not define`);
      }
    });
  }
}

/** Why `app:resource:verb` is not in the catalogue, or undefined when it is (wildcards allowed). */
function catalogueProblem(catalogue: PermissionCatalogue, app: string, resource: string, verb: string): string | undefined {
  if (app === "*") return resource === "*" && verb === "*" ? undefined : "the application can only be '*' in '*:*:*'";
  const resources = catalogue[app];
  if (!resources) return `no permissions/${app}.json in the catalogue`;
  if (resource === "*") {
    const known = verb === "*" || Object.values(resources).some((verbs) => verbs.some((v) => v.verb === verb));
    return known ? undefined : `application '${app}' has no verb '${verb}'`;
  }
  const verbs = resources[resource];
  if (!verbs) return `application '${app}' has no resource '${resource}'`;
  return verb === "*" || verbs.some((v) => v.verb === verb) ? undefined : `resource '${app}:${resource}' has no verb '${verb}'`;
}

/**
 * A catalogue permission of a migrated application that no KSL models cannot be granted through
 * roles; the real repository has such permissions (playbook-dispatcher), so this is a warning.
 */
function checkMigratedAppsModelled(reader: Reader, catalogue: PermissionCatalogue, migratedApps: string[], relations: Set<string>): void {
  for (const app of migratedApps) {
    for (const permission of cataloguePermissions(catalogue, app)) {
      const relation = v1PermissionRelation(permission);
      if (!relations.has(relation)) {
        reader.warn(
          "unmodelled-permission",
          `${CONFIG_LAYOUT.permissions}/${app}.json`,
          `$.${permission.split(":")[1]}`,
          `'${permission}' belongs to a migrated application but no KSL schema defines 'rbac/role#${relation}'`,
        );
      }
    }
  }
}
