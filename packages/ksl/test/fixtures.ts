// Test helpers: the shared rbac-config fixtures live next to the repository root.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { KslSource } from "../src/index.js";

const fixturesRoot = fileURLToPath(new URL("../../../fixtures/rbac-config/", import.meta.url));

export type Env = "stage" | "prod";

/** The `src/*.ksl` files plus `rbac_v1_permissions.json` of one environment, as compiler inputs. */
export function fixtureSources(env: Env): KslSource[] {
  const dir = `${fixturesRoot}${env}/`;
  const ksl = readdirSync(`${dir}src`)
    .filter((f) => f.endsWith(".ksl"))
    .sort()
    .map((f) => ({ fileName: `src/${f}`, text: readFileSync(`${dir}src/${f}`, "utf8") }));
  return [...ksl, { fileName: "rbac_v1_permissions.json", text: readFileSync(`${dir}rbac_v1_permissions.json`, "utf8") }];
}

export function fixtureZed(env: Env): string {
  return readFileSync(`${fixturesRoot}${env}/schema.zed`, "utf8");
}

/** A readable description of where two texts first differ (for byte-for-byte assertions). */
export function firstDifference(actual: string, expected: string): string | undefined {
  if (actual === expected) return undefined;
  const a = actual.split("\n");
  const e = expected.split("\n");
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) {
      return `first difference at line ${i + 1}:\n  expected: ${JSON.stringify(e[i])}\n  actual:   ${JSON.stringify(a[i])}`;
    }
  }
  return `texts differ only in line endings or a trailing newline (lengths ${actual.length} vs ${expected.length})`;
}
