#!/usr/bin/env node
// Import boundaries of the monorepo (see ARCHITECTURE.md, "Packages and what each may import").
// Fails when a package imports an app, a workspace package it is not allowed to use,
// another package's internals (deep imports; only the public entry and a '/testing' entry exist), or when a pure package touches Node APIs.
import fs from "node:fs";
import path from "node:path";
import { builtinModules } from "node:module";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/** Which workspace packages each workspace member may import (by short name). */
const allowed = {
  "packages/evaluator": [],
  "packages/ksl": ["evaluator"],
  "packages/rbac": ["evaluator"],
  "packages/role-config": ["ksl", "evaluator"],
  "packages/proto": [],
  "packages/store": ["evaluator", "rbac"],
  "packages/cache": [],
  "packages/auth": [],
  "packages/problem": ["auth"],
  "packages/telemetry": [],
  "packages/config": [],
  "packages/client": ["proto"],
  "apps/management-api": "packages",
  "apps/authz-engine": "packages",
  "apps/workspace-cache": "packages",
  "apps/gatehouse": ["*"],
  // The web console bundles the pure packages for the browser (the management API serves its dist/).
  "apps/console": ["evaluator", "ksl"],
  // The example application runs the whole stack in-process in its tests.
  "apps/example-host-inventory": ["*"],
  infra: [],
  loadtest: [],
};
/**
 * Files of another member a member may import by relative path: pure data with no imports of its own.
 * The load test's rehearsal renders its HAProxy routes from infra's table of public paths, so the
 * proxy and the Ingress cannot drift apart.
 */
const sharedFiles = { loadtest: ["infra/src/route-table.ts"] };
/** Pure packages: no Node built-ins in their sources (they must run in a browser or edge runtime). */
const pure = new Set(["packages/evaluator", "packages/ksl", "packages/rbac", "apps/console"]);
const nodeBuiltins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const apps = new Set(["management-api", "authz-engine", "workspace-cache", "gatehouse"]);

/**
 * Layers inside a member, lowest first: a file in a listed folder may import (by relative path) only
 * files of its own folder and of the folders listed for it, so every arrow points down the house.
 * Files outside the listed folders (routes, the HTTP edge, the server) may import any layer.
 */
const layers = {
  "apps/management-api": {
    // Domain errors and the request context: no HTTP, no store calls.
    "src/domain": [],
    // The authorization graph and the role configuration.
    "src/authz": ["src/domain"],
    // Commands raise domain errors; the edge (src/http/) turns them into HTTP answers.
    "src/commands": ["src/domain", "src/authz", "src/schemas", "src/config.ts"],
    // Access reads (explain, fixes) built on the commands.
    "src/access": ["src/domain", "src/authz", "src/commands", "src/schemas"],
  },
};

/** Why importing `target` from `file` (both relative to the member) breaks the member's layers, or null. */
export function layerProblem(member, file, target) {
  const table = layers[member];
  if (!table) return null;
  const within = (p, place) => p === place || p.startsWith(`${place}/`);
  const from = Object.keys(table).find((folder) => within(file, folder));
  if (from === undefined) return null;
  const allowedPlaces = [from, ...table[from]];
  if (allowedPlaces.some((place) => within(target, place))) return null;
  return `${member}/${file}: imports '${target}' above its layer (${from} may import ${allowedPlaces.join(", ")})`;
}

// The layer rule checks itself on every run (`--self-check` runs only this): it must refuse an
// upward import and let a downward one through.
const layerCases = [
  ["src/commands/roles.ts", "src/http/problem.ts", true],
  ["src/authz/authorizer.ts", "src/http/problem.ts", true],
  ["src/commands/org-mode.ts", "src/access/parity.ts", true],
  ["src/domain/errors.ts", "src/commands/roles.ts", true],
  ["src/commands/roles.ts", "src/domain/errors.ts", false],
  ["src/commands/roles.ts", "src/schemas/common.ts", false],
  ["src/access/explain.ts", "src/commands/binding-access.ts", false],
  ["src/routes/roles.ts", "src/http/validate.ts", false],
];
const selfCheck = layerCases
  .filter(([file, target, caught]) => (layerProblem("apps/management-api", file, target) !== null) !== caught)
  .map(([file, target, caught]) => `layer rule self-check: ${caught ? "missed" : "wrongly refused"} ${file} -> ${target}`);
if (process.argv.includes("--self-check")) {
  for (const line of selfCheck) console.error(line);
  if (selfCheck.length === 0) console.log(`Layer rule self-check: ${layerCases.length} cases, every upward import refused, every downward one allowed.`);
  process.exit(selfCheck.length === 0 ? 0 : 1);
}

const problems = [...selfCheck];
function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name === "dist" || e.name === "gen") continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}
const importRe = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

for (const [member, rule] of Object.entries(allowed)) {
  const base = path.join(root, member);
  if (!fs.existsSync(base)) continue;
  const pkg = JSON.parse(fs.readFileSync(path.join(base, "package.json"), "utf8"));
  const declared = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) => d.startsWith("@gatehouse/"));
  const isAllowed = (short) => {
    if (rule === "packages") return !apps.has(short);
    if (rule.includes("*")) return true;
    return rule.includes(short);
  };
  for (const d of declared) {
    const short = d.slice("@gatehouse/".length);
    if (!isAllowed(short)) problems.push(`${member}/package.json: may not depend on ${d}`);
  }
  for (const file of walk(path.join(base, "src"))) {
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec) continue;
      const rel = path.relative(root, file);
      if (spec.startsWith("@gatehouse/")) {
        const [, short, ...rest] = spec.split("/");
        if (rest.length > 0 && !(rest.length === 1 && rest[0] === "testing")) problems.push(`${rel}: deep import '${spec}' (use the package's public entry)`);
        if (!isAllowed(short)) problems.push(`${rel}: may not import '${spec}'`);
      } else if (spec.startsWith(".")) {
        const target = path.resolve(path.dirname(file), spec);
        const shared = (sharedFiles[member] ?? []).includes(path.relative(root, target));
        if (!target.startsWith(base + path.sep) && !shared) problems.push(`${rel}: relative import '${spec}' leaves its package`);
        const layered = layerProblem(member, path.relative(base, file), path.relative(base, target).replace(/\.js$/, ".ts"));
        if (layered) problems.push(layered);
      } else if (pure.has(member) && nodeBuiltins.has(spec.split("/")[0] === "node:" ? spec : spec)) {
        if (!file.endsWith(".test.ts")) problems.push(`${rel}: pure package imports Node built-in '${spec}'`);
      }
    }
  }
}
// Import cycles among a member's own files (relative imports, tests included): a cycle makes
// module initialisation order-dependent and means shared code lives in the wrong file.
function resolveRelative(file, spec) {
  const target = path.resolve(path.dirname(file), spec);
  const candidates = [target, target.replace(/\.js$/, ".ts"), target.replace(/\.mjs$/, ".mts"), `${target}.ts`, path.join(target, "index.ts")];
  return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
}
function findCycles(files) {
  const edges = new Map();
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    const targets = new Set();
    for (const m of text.matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? m[3];
      // Type-only imports vanish at runtime but still tangle the design, so they count too.
      if (spec?.startsWith(".")) {
        const target = resolveRelative(file, spec);
        if (target) targets.add(target);
      }
    }
    edges.set(file, [...targets]);
  }
  const cycles = [];
  const state = new Map(); // 1 = on the current path, 2 = done
  const stack = [];
  const visit = (file) => {
    state.set(file, 1);
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 1) cycles.push(stack.slice(stack.indexOf(next)).concat(next));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 2);
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}
for (const member of Object.keys(allowed)) {
  const base = path.join(root, member);
  if (!fs.existsSync(base)) continue;
  const files = ["src", "test", "bench", "scripts"].flatMap((d) => walk(path.join(base, d)));
  for (const cycle of findCycles(files)) problems.push(`${member}: import cycle ${cycle.map((f) => path.relative(base, f)).join(" -> ")}`);
}

// The repository stands alone: no source, test or bench reads a folder beside the checkout
// (public test data lives in fixtures/, see fixtures/README.md).
const outsideRe = /\.\.\/shared\/(?:fixtures|contracts|spec|design)\b|["']shared["'],\s*["']fixtures["']/;
for (const member of Object.keys(allowed)) {
  for (const file of walk(path.join(root, member))) {
    if (outsideRe.test(fs.readFileSync(file, "utf8"))) problems.push(`${path.relative(root, file)}: reads data outside the repository (carry it in fixtures/)`);
  }
}

if (problems.length > 0) {
  console.error(`Import boundary violations (${problems.length}):\n${problems.map((p) => `  ${p}`).join("\n")}`);
  process.exit(1);
}
console.log("boundaries: ok");
