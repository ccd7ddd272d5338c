// Test support: where the public role-configuration repository snapshot lives. The repository
// carries it (`<repo>/fixtures/rbac-config-repo`, RedHatInsights/rbac-config at commit
// dc11d344f2913e1488322d8abf291227a7788c3c; fixtures/README.md);
// GATEHOUSE_RBAC_CONFIG_REPO points elsewhere.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { packageRoot } from "./directory.js";

const FIXTURE = join("fixtures", "rbac-config-repo");

/** Candidate locations: the override, then `<ancestor>/fixtures/rbac-config-repo` of every ancestor of this package. */
function candidates(): string[] {
  const out: string[] = [];
  const override = process.env.GATEHOUSE_RBAC_CONFIG_REPO;
  if (override) out.push(resolve(override));
  for (let dir = resolve(packageRoot); ; dir = dirname(dir)) {
    out.push(join(dir, FIXTURE));
    if (dirname(dir) === dir) break;
  }
  return out;
}

/** The snapshot's root (holding `configs/` and `schemas/`); throws naming every place it looked. */
export function rbacConfigRepoDir(): string {
  const tried = candidates();
  const found = tried.find((dir) => existsSync(join(dir, "configs", "stage")) && existsSync(join(dir, "schemas", "roles.schema")));
  if (found) return found;
  throw new Error(
    `The role-configuration repository snapshot was not found (tests expect it at <repo>/fixtures/rbac-config-repo; ` +
      `set GATEHOUSE_RBAC_CONFIG_REPO to its directory). Looked in:\n  ${tried.join("\n  ")}`,
  );
}

/** `configs/<env>` of the snapshot. */
export const rbacConfigRepoEnv = (env: "stage" | "prod"): string => join(rbacConfigRepoDir(), "configs", env);

/** The reference generator's `rbac_v1_permissions.json` for the snapshot (`../rbac-config/<env>/`), if present. */
export function referenceV1OnlyPermissionsFile(env: "stage" | "prod"): string | undefined {
  const file = join(rbacConfigRepoDir(), "..", "rbac-config", env, "rbac_v1_permissions.json");
  return existsSync(file) ? file : undefined;
}
