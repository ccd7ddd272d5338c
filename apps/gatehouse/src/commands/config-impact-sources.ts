// Where `config-impact` reads its two configurations (a directory, or a revision of a
// role-configuration git repository taken out with `git archive` into a temporary directory) and
// its data (a v1 export, planned as `migrate` would import it; a store's is the management API's,
// storeImpactData).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadRoleConfiguration, seededRolesOf, type ImpactData, type RoleConfiguration } from "@gatehouse/management-api";
import { heldV1Permissions, seededV1Role, subjectsOfTenants, type AssetTypeCatalog, type ImpactRunSide, type ImpactTenant, type V1Export } from "@gatehouse/rbac";
import { formatIssue, RoleConfigError, type Environment } from "@gatehouse/role-config";
import { MigrationError } from "../migration/errors.js";
import { planTuples } from "../migration/parity-run.js";
import { planExport } from "../migration/plan.js";

export interface LoadedConfig {
  /** What the user named (directory or revision), for messages and the report. */
  readonly label: string;
  readonly config: RoleConfiguration;
}

/** A name the user gave, quoted in a message: at most 100 characters of it. */
export const shown = (name: string): string => (name.length > 100 ? `${name.slice(0, 100)}…` : name);

const git = (repo: string, args: string[]): string => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** `configs/<env>` of a revision, with the repository's JSON Schemas beside it as in a checkout. */
function checkoutRevision(repo: string, revision: string, configPath: string): string {
  // Never an option of git's.
  if (revision.startsWith("-")) throw new MigrationError("invalid-options", `'${shown(revision)}' is not a revision`);
  let commit: string;
  try {
    commit = git(repo, ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]).trim();
  } catch {
    throw new MigrationError("file-not-found", `'${shown(revision)}' is neither a directory nor a revision of the git repository '${repo}'`);
  }
  const present = (path: string) => {
    try {
      git(repo, ["cat-file", "-e", `${commit}:${path}`]);
      return true;
    } catch {
      return false;
    }
  };
  if (!present(configPath)) throw new MigrationError("file-not-found", `revision '${shown(revision)}' of '${repo}' has no '${shown(configPath)}'`);
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-config-"));
  const archive = join(dir, "revision.tar");
  git(repo, ["archive", "--format=tar", "-o", archive, commit, configPath, ...(present("schemas") ? ["schemas"] : [])]);
  execFileSync("tar", ["-xf", archive, "-C", dir]);
  rmSync(archive);
  return dir;
}

/**
 * Loads one side: a configuration directory (or a repository checkout holding `configPath`), else
 * `spec` as a git revision of `repo`. A configuration that does not load names its files and lines.
 */
export async function loadConfigSide(spec: string, options: { repo: string; configPath: string; env: Environment }): Promise<LoadedConfig> {
  let dir: string;
  let scratch: string | undefined;
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    dir = existsSync(join(spec, options.configPath)) ? join(spec, options.configPath) : spec;
  } else {
    scratch = checkoutRevision(resolve(options.repo), spec, options.configPath);
    dir = join(scratch, options.configPath);
  }
  try {
    return { label: spec, config: await loadRoleConfiguration(options.env, dir) };
  } catch (err) {
    // Issues name files inside the configuration; a revision's temporary directory is nobody's business.
    if (err instanceof RoleConfigError) throw new MigrationError("schema-unavailable", `configuration '${shown(spec)}' does not load:\n${err.issues.map(formatIssue).join("\n")}`);
    throw err;
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The export's system roles with the configuration's seeded roles in place of those of the same name. */
function withSeededRoles(exp: V1Export, config: RoleConfiguration): V1Export {
  const seeded = seededRolesOf(config);
  const configured = new Set(seeded.map((r) => r.name.toLowerCase()));
  const kept = exp.system_roles.filter((r) => !configured.has(r.name.toLowerCase()));
  const uuidOf = new Map(exp.system_roles.filter((r) => r.uuid).map((r) => [r.name.toLowerCase(), r.uuid as string]));
  return { ...exp, system_roles: [...kept, ...seeded.map((r) => seededV1Role(r, uuidOf.get(r.name.toLowerCase())))] };
}

/**
 * A v1 export planned under each configuration (its seeded roles replacing the export's system
 * roles of the same name): the relationships `migrate` would write, and each principal's v1
 * permissions (organisation-wide entries; inventory group.id entries are bound on workspaces).
 */
export function planImpactData(exp: V1Export, catalog: AssetTypeCatalog, from: RoleConfiguration, to: RoleConfiguration, platform: string): ImpactData {
  const domain = exp.domain ?? "redhat";
  const side = (config: RoleConfiguration) => {
    const e = withSeededRoles(exp, config);
    const planned = planExport(e, catalog);
    const held = new Map<string, Set<string>>();
    for (const { tenant } of planned) for (const [user, permissions] of heldV1Permissions(e, tenant)) held.set(`${tenant.org_id} ${user}`, permissions);
    const relationships = planTuples(planned, platform);
    return { planned, held, run: { model: config.model, schemaAst: config.schemaAst, relationships, seededRoles: seededRolesOf(config) } satisfies ImpactRunSide };
  };
  const a = side(from);
  const b = side(to);
  const ids = a.planned.map((p) => p.plan.ids);
  const subjects = subjectsOfTenants([...a.run.relationships, ...b.run.relationships], ids, domain);
  const tenants: ImpactTenant[] = a.planned.map(({ tenant, plan }) => ({
    orgId: tenant.org_id,
    ids: plan.ids,
    principals: tenant.principals.map((p) => {
      const key = `${tenant.org_id} ${p.user_id}`;
      const workspaceIds = subjects.get(tenant.org_id)?.workspaceIds.get(p.user_id);
      return { userId: p.user_id, heldBefore: a.held.get(key) ?? new Set(), heldAfter: b.held.get(key) ?? new Set(), ...(workspaceIds ? { workspaceIds } : {}) };
    }),
  }));
  return { before: a.run, after: b.run, tenants, domain, source: { kind: "v1-export" } };
}
