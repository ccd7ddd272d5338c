// Reads, validates and compiles one environment's configuration. Data files are resolved from the
// package root, which is one level above both `src/` (tests, tsx) and `dist/` (deployed code).
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compile, type KslSource, type SchemaAst } from "@gatehouse/ksl";
import { compileSchema, type Model } from "@gatehouse/evaluator";
import { RoleConfigError, type RoleConfigErrorCode, type RoleConfigIssue } from "./errors.js";
import {
  jsonPath, migratedAppsSchema, permissionFileSchema, roleFileSchema,
  type PermissionCatalogue, type RoleDefinition,
} from "./schemas.js";
import { cataloguePermissions, v1OnlyPermissionsSource, v1PermissionRelation } from "./v1-permissions.js";
import type { z } from "zod";

export const ENVIRONMENTS = ["stage", "prod"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const packageRoot = fileURLToPath(new URL("../", import.meta.url));

export interface RoleConfig {
  env: Environment;
  /** Generated zed text (what `<env>/schema.zed` must contain). */
  schemaZed: string;
  /** The schema object the evaluator compiles directly. */
  schemaAst: SchemaAst;
  roles: RoleDefinition[];
  permissions: PermissionCatalogue;
  /** Applications whose permissions are modelled in KSL; the others get assignable V1-only relations. */
  migratedApps: string[];
}

/** Where a file of the environment lives, relative to the package root (used in messages). */
export const envFile = (env: Environment, ...parts: string[]): string => [env, ...parts].join("/");
export const schemaZedFile = (env: Environment): string => envFile(env, "schema.zed");

/** Where to read an environment from; tests point `root` at a scratch copy. */
export interface LoadOptions {
  /** Directory holding `<env>/...`; defaults to this package's root. */
  root?: string;
}

const rootOf = (options: LoadOptions): string => (options.root ?? packageRoot).replace(/\/?$/, "/");

function assertEnvironment(env: string): asserts env is Environment {
  if (!(ENVIRONMENTS as readonly string[]).includes(env)) {
    throw new RoleConfigError([{ code: "unknown-environment", file: "", path: "$", message: `unknown environment '${env}' (expected ${ENVIRONMENTS.join(" or ")})` }]);
  }
}

class IssueList {
  readonly items: RoleConfigIssue[] = [];
  add(code: RoleConfigErrorCode, file: string, path: string, message: string): void {
    this.items.push({ code, file, path, message });
  }
  throwIfAny(): void {
    if (this.items.length > 0) throw new RoleConfigError(this.items);
  }
}

function listFiles(root: string, env: Environment, dir: string, extension: string, issues: IssueList): string[] {
  try {
    return readdirSync(root + envFile(env, dir)).filter((f) => f.endsWith(extension)).sort();
  } catch (e) {
    issues.add("read-failed", envFile(env, dir), "$", `cannot list files: ${(e as Error).message}`);
    return [];
  }
}

function readText(root: string, file: string, issues: IssueList): string | undefined {
  try {
    return readFileSync(root + file, "utf8");
  } catch (e) {
    issues.add("read-failed", file, "$", (e as Error).message);
    return undefined;
  }
}

function readJson<S extends z.ZodType>(root: string, file: string, schema: S, code: RoleConfigErrorCode, issues: IssueList): z.infer<S> | undefined {
  const text = readText(root, file, issues);
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    issues.add("invalid-json", file, "$", (e as Error).message);
    return undefined;
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.add(code, file, jsonPath(issue.path), issue.message);
    return undefined;
  }
  return parsed.data;
}

function readCatalogue(root: string, env: Environment, issues: IssueList): PermissionCatalogue {
  const catalogue: PermissionCatalogue = {};
  for (const name of listFiles(root, env, "permissions", ".json", issues)) {
    const data = readJson(root, envFile(env, "permissions", name), permissionFileSchema, "invalid-permission-file", issues);
    if (data) catalogue[name.slice(0, -".json".length)] = data;
  }
  return catalogue;
}

function readMigratedApps(root: string, env: Environment, catalogue: PermissionCatalogue, issues: IssueList): string[] {
  const file = envFile(env, "migrated-apps.json");
  const apps = readJson(root, file, migratedAppsSchema, "invalid-migrated-apps", issues) ?? [];
  apps.forEach((app, i) => {
    if (!catalogue[app]) issues.add("invalid-migrated-apps", file, `$[${i}]`, `'${app}' has no permissions/${app}.json`);
  });
  return apps;
}

/** The compiler inputs of an environment: `schemas/*.ksl` plus the generated V1-only IR module. */
function schemaInputs(root: string, env: Environment, catalogue: PermissionCatalogue, migratedApps: string[], issues: IssueList): KslSource[] {
  const sources: KslSource[] = [];
  for (const name of listFiles(root, env, "schemas", ".ksl", issues)) {
    const fileName = envFile(env, "schemas", name);
    const text = readText(root, fileName, issues);
    if (text !== undefined) sources.push({ fileName, text });
  }
  sources.push(v1OnlyPermissionsSource(catalogue, migratedApps, envFile(env, "(generated) v1-permissions.json")));
  return sources;
}

function compileInputs(sources: KslSource[], issues: IssueList): { zed: string; ast: SchemaAst } | undefined {
  const result = compile(sources);
  for (const d of result.errors) issues.add("schema-compile-failed", d.file, `${d.line}:${d.column}`, `${d.code} ${d.message}`);
  return result.ast ? { zed: result.zed, ast: result.ast } : undefined;
}

/** Builds `<env>/schema.zed` text from the KSL sources (and the permission catalogue). */
export function buildSchema(env: Environment, options: LoadOptions = {}): string {
  return buildEnvironmentSchema(env, options).zed;
}

function buildEnvironmentSchema(env: Environment, options: LoadOptions): { zed: string; ast: SchemaAst; catalogue: PermissionCatalogue; migratedApps: string[] } {
  assertEnvironment(env);
  const root = rootOf(options);
  const issues = new IssueList();
  const catalogue = readCatalogue(root, env, issues);
  const migratedApps = readMigratedApps(root, env, catalogue, issues);
  issues.throwIfAny();
  const compiled = compileInputs(schemaInputs(root, env, catalogue, migratedApps, issues), issues);
  issues.throwIfAny();
  return { ...compiled!, catalogue, migratedApps };
}

/** The evaluator model of an environment's schema. */
export function compileRoleModel(env: Environment, options: LoadOptions = {}): Model {
  return compileSchema(buildEnvironmentSchema(env, options).ast);
}

/** Loads and validates everything of one environment; throws a RoleConfigError listing every problem. */
export function loadRoleConfig(env: Environment, options: LoadOptions = {}): RoleConfig {
  const { zed, ast, catalogue, migratedApps } = buildEnvironmentSchema(env, options);
  const issues = new IssueList();
  const roles = readRoles(rootOf(options), env, issues);
  checkRoles(env, roles, catalogue, roleRelations(ast), issues);
  checkMigratedAppsModelled(env, catalogue, migratedApps, roleRelations(ast), issues);
  issues.throwIfAny();
  return { env, schemaZed: zed, schemaAst: ast, roles: roles.map((r) => r.role), permissions: catalogue, migratedApps };
}

interface LocatedRole {
  role: RoleDefinition;
  file: string;
  index: number;
}

function readRoles(root: string, env: Environment, issues: IssueList): LocatedRole[] {
  const out: LocatedRole[] = [];
  for (const name of listFiles(root, env, "roles", ".json", issues)) {
    const file = envFile(env, "roles", name);
    const data = readJson(root, file, roleFileSchema, "invalid-role-file", issues);
    data?.roles.forEach((role, index) => out.push({ role, file, index }));
  }
  return out;
}

/** Names of the relations on `rbac/role` (what a V1 permission must map to). */
function roleRelations(ast: SchemaAst): Set<string> {
  const role = ast.definitions.find((d) => d.name === "rbac/role");
  return new Set(role?.members.filter((m) => m.kind === "permission").map((m) => m.name) ?? []);
}

function checkRoles(env: Environment, roles: LocatedRole[], catalogue: PermissionCatalogue, relations: Set<string>, issues: IssueList): void {
  const seen = new Map<string, string>();
  for (const { role, file, index } of roles) {
    const at = `$.roles[${index}]`;
    const prior = seen.get(role.name);
    if (prior) issues.add("duplicate-role", file, `${at}.name`, `role '${role.name}' is already defined in ${prior}`);
    else seen.set(role.name, `${file} ${at}`);
    role.access?.forEach((entry, i) => {
      const path = `${at}.access[${i}].permission`;
      const [app, resource, verb] = entry.permission.split(":") as [string, string, string];
      const problem = catalogueProblem(catalogue, app, resource, verb);
      if (problem) {
        issues.add("unknown-permission", file, path, `'${entry.permission}': ${problem}`);
        return;
      }
      const relation = v1PermissionRelation(entry.permission);
      if (!relations.has(relation)) {
        issues.add("unmapped-permission", file, path, `'${entry.permission}' maps to 'rbac/role#${relation}', which the ${env} schema does not define`);
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

/** Every catalogue permission of a migrated application must be modelled in KSL. */
function checkMigratedAppsModelled(env: Environment, catalogue: PermissionCatalogue, migratedApps: string[], relations: Set<string>, issues: IssueList): void {
  for (const app of migratedApps) {
    for (const permission of cataloguePermissions(catalogue, app)) {
      const relation = v1PermissionRelation(permission);
      if (!relations.has(relation)) {
        issues.add("unmodelled-permission", envFile(env, "permissions", `${app}.json`), `$.${permission.split(":")[1]}`, `'${permission}' belongs to a migrated application but no KSL schema defines 'rbac/role#${relation}'`);
      }
    }
  }
}
