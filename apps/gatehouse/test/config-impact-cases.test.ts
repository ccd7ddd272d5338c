// The configuration-impact case files (fixtures/config-impact/<case>/): real changes of the
// role-configuration repository, each with a small v1 data set, the impact it must report and the
// impact it must not. Every case runs through `gatehouse config-impact --from <dir> --to <dir>
// --input <export> --json` and through the pure path (planImpactData + evaluateConfigImpact) and
// both must agree: must-report ⊆ reported, must-not-report ∩ reported = ∅, and the exit status
// (1 on a loss or broken parity, 0 once `--accept` names it).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRoleConfiguration } from "@gatehouse/management-api";
import { defaultAssetTypes, evaluateConfigImpact, parseAssetTypes, unacceptedImpact, type ConfigImpact, type V1Export } from "@gatehouse/rbac";
import { rbacConfigRepoDir } from "@gatehouse/role-config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { planImpactData } from "../src/commands/config-impact-sources.js";
import { buildProgram } from "../src/program.js";
import { captureOutput } from "./support/capture-output.js";

const casesDir = fileURLToPath(new URL("../../../fixtures/config-impact/", import.meta.url));
const bundledAssetTypes = JSON.parse(readFileSync(fileURLToPath(new URL("../../../packages/rbac/src/data/asset-types.json", import.meta.url)), "utf8"));

interface Access {
  org: string;
  user: string;
  permission: string;
  at: string;
}
interface PermissionAt {
  permission: string;
  at?: string;
  objectType?: string;
}
/** A list of items, or "any": nothing of that kind at all. */
type Items<T> = T[] | "any";
interface Expectations {
  lost?: Items<Access>;
  gained?: Items<Access>;
  parityBroken?: Items<Access>;
  parityRestored?: Items<PermissionAt>;
  unverifiable?: Items<PermissionAt>;
  seededRoles?: Items<Record<string, unknown> & { name: string }>;
}
interface Case {
  title: string;
  upstream: { repository: string; commit: string; parent: string; subject: string; files: string };
  env: "stage" | "prod";
  assetTypes?: Record<string, unknown>;
  v1: V1Export;
  exit: number;
  accept?: string[];
  mustReport: Expectations;
  mustNotReport: Expectations;
}

const cases = readdirSync(casesDir)
  .filter((name) => existsSync(join(casesDir, name, "case.json")))
  .sort()
  .map((name) => ({ name, spec: JSON.parse(readFileSync(join(casesDir, name, "case.json"), "utf8")) as Case }));

const scratch = mkdtempSync(join(tmpdir(), "config-impact-cases-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const output = captureOutput();

const filesUnder = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => statSync(join(dir, f)).isFile()) : []);

/**
 * One side of a case: the rbac-config snapshot with every file the case names removed, then the
 * side's files in place (a file only `after/` has does not exist before the change).
 */
function materialise(name: string, side: "before" | "after"): string {
  const dir = join(scratch, name, side);
  cpSync(rbacConfigRepoDir(), dir, { recursive: true });
  const caseDir = join(casesDir, name);
  for (const f of new Set([...filesUnder(join(caseDir, "before")), ...filesUnder(join(caseDir, "after"))])) rmSync(join(dir, f), { force: true });
  // The committed schema.zed is generated from the sources a case changes.
  for (const env of ["stage", "prod"]) rmSync(join(dir, "configs", env, "schemas", "schema.zed"), { force: true });
  if (existsSync(join(caseDir, side))) cpSync(join(caseDir, side), dir, { recursive: true });
  return dir;
}

/** The impact as sets of keys, one set per kind the case files name. */
function reported(impact: ConfigImpact): Record<keyof Expectations, Map<string, Record<string, unknown>>> {
  const access = (kind: "lost" | "gained" | "parityBroken") =>
    new Map(impact.permissions.flatMap((p) => p.examples[kind].map((e) => [`${e.orgId} ${e.userId} ${p.v2Permission}@${p.checkedAt}`, { ...e }] as const)));
  return {
    lost: access("lost"),
    gained: access("gained"),
    parityBroken: access("parityBroken"),
    parityRestored: new Map(impact.permissions.filter((p) => p.parityRestored > 0).map((p) => [`${p.v2Permission}@${p.checkedAt}`, { ...p }])),
    unverifiable: new Map(impact.unverifiable.map((u) => [`${u.v2Permission} ${u.objectType}`, { ...u }])),
    seededRoles: new Map(impact.seededRoles.map((r) => [r.name, { ...r }])),
  };
}

const keyOf = (kind: keyof Expectations, item: Record<string, unknown>): string => {
  if (kind === "lost" || kind === "gained" || kind === "parityBroken") return `${item.org} ${item.user} ${item.permission}@${item.at}`;
  if (kind === "parityRestored") return `${item.permission}@${item.at}`;
  if (kind === "unverifiable") return `${item.permission} ${item.objectType}`;
  return String(item.name);
};

/** A reported entry matches a case's item: same key and, for seeded roles, every field the item names. */
const matches = (kind: keyof Expectations, found: Record<string, unknown> | undefined, item: Record<string, unknown>): boolean =>
  found !== undefined && (kind !== "seededRoles" || Object.entries(item).every(([k, v]) => JSON.stringify(found[k]) === JSON.stringify(v)));

function checkAgainst(impact: ConfigImpact, spec: Case): void {
  const got = reported(impact);
  for (const [kind, items] of Object.entries(spec.mustReport) as [keyof Expectations, Items<Record<string, unknown>>][]) {
    if (items === "any") throw new Error(`mustReport.${kind}: "any" is only for mustNotReport`);
    for (const item of items) {
      const found = got[kind].get(keyOf(kind, item));
      expect(found, `must report ${kind} ${keyOf(kind, item)}; reported: ${[...got[kind].keys()].join(", ") || "none"}`).toBeDefined();
      if (kind === "seededRoles") expect(found).toMatchObject(item);
    }
  }
  for (const [kind, items] of Object.entries(spec.mustNotReport) as [keyof Expectations, Items<Record<string, unknown>>][]) {
    if (items === "any") {
      expect([...got[kind].keys()], `must report no ${kind}`).toEqual([]);
      continue;
    }
    for (const item of items) expect(matches(kind, got[kind].get(keyOf(kind, item)), item), `must not report ${kind} ${JSON.stringify(item)}`).toBe(false);
  }
}

async function cli(args: string[]): Promise<{ code: number; json: Record<string, unknown> & ConfigImpact }> {
  output.out = "";
  process.exitCode = undefined;
  await buildProgram().parseAsync(["node", "gatehouse", "config-impact", ...args]);
  return { code: Number(process.exitCode ?? 0), json: JSON.parse(output.out) };
}

describe.each(cases)("config-impact case $name", ({ name, spec }) => {
  const from = materialise(name, "before");
  const to = materialise(name, "after");
  const input = join(scratch, name, "v1-export.json");
  writeFileSync(input, JSON.stringify(spec.v1));
  const assetTypes = join(scratch, name, "asset-types.json");
  writeFileSync(assetTypes, JSON.stringify({ ...bundledAssetTypes, assetTypes: { ...bundledAssetTypes.assetTypes, ...spec.assetTypes } }));
  const args = ["--from", from, "--to", to, "--env", spec.env, "--input", input, "--asset-types", assetTypes, "--examples", "1000", "--json"];

  it(`names its upstream change (${spec.upstream.commit.slice(0, 7)}) and only files it carries`, () => {
    expect(spec.upstream.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(spec.upstream.parent).toMatch(/^[0-9a-f]{40}$/);
    const files = [...filesUnder(join(casesDir, name, "before")), ...filesUnder(join(casesDir, name, "after"))];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(relative("configs", f).startsWith(".."), f).toBe(false);
  });

  it(`the CLI reports what it must, not what it must not, exit ${spec.exit}`, async () => {
    const run = await cli(args);
    checkAgainst(run.json, spec);
    expect(run.code).toBe(spec.exit);
    expect(run.json.ok).toBe(spec.exit === 0);
    if (spec.accept) {
      const accepted = await cli([...args, "--accept", ...spec.accept]);
      expect(accepted.code).toBe(0);
      expect(accepted.json.ok).toBe(true);
    }
  });

  it("the pure path reports the same", async () => {
    const before = await loadRoleConfiguration(spec.env, join(from, "configs", spec.env));
    const after = await loadRoleConfiguration(spec.env, join(to, "configs", spec.env));
    const catalog = spec.assetTypes ? parseAssetTypes({ ...bundledAssetTypes, assetTypes: { ...bundledAssetTypes.assetTypes, ...spec.assetTypes } }) : defaultAssetTypes();
    const data = planImpactData(spec.v1, catalog, before, after, "stage");
    const { impact } = evaluateConfigImpact({ ...data, catalog, examples: 1000 });
    checkAgainst(impact, spec);
    expect(unacceptedImpact(impact, []).length > 0 ? 1 : 0).toBe(spec.exit);
    if (spec.accept) expect(unacceptedImpact(impact, spec.accept)).toEqual([]);
    // The CLI and the pure path agree on the whole impact.
    const run = await cli(args);
    expect(run.json.summary).toEqual(impact.summary);
    expect(run.json.permissions).toEqual(JSON.parse(JSON.stringify(impact.permissions)));
  });
});
