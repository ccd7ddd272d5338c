#!/usr/bin/env node
// One version of each shared dependency: a third-party package that more than one workspace member
// depends on must be written "catalog:" everywhere, and every "catalog:" name must be in the
// catalog of pnpm-workspace.yaml. (pnpm itself only checks the second.)
import fs from "node:fs";
import path from "node:path";

const root = process.argv[2] ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const workspace = fs.readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8");

/** Top-level list or map entries of one key of the (flat, hand-written) workspace file. */
function section(key) {
  const lines = workspace.split("\n");
  const start = lines.indexOf(`${key}:`);
  if (start < 0) return [];
  const out = [];
  for (const line of lines.slice(start + 1)) {
    if (!/^\s/.test(line) && line.trim() !== "") break;
    const entry = /^\s+(?:-\s+)?"?([^":#]+?)"?\s*(?::.*)?$/.exec(line);
    if (entry && !line.trim().startsWith("#")) out.push(entry[1]);
  }
  return out;
}

const catalog = new Set(section("catalog"));
const members = section("packages").flatMap((pattern) => {
  if (!pattern.endsWith("/*")) return [pattern];
  const dir = path.join(root, pattern.slice(0, -2));
  return fs.readdirSync(dir).map((name) => `${pattern.slice(0, -2)}/${name}`);
});

const users = new Map();
const problems = [];
for (const member of members) {
  const file = path.join(root, member, "package.json");
  if (!fs.existsSync(file)) continue;
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [name, spec] of Object.entries(pkg[field] ?? {})) {
      if (spec.startsWith("workspace:")) continue;
      if (spec === "catalog:" && !catalog.has(name)) problems.push(`${member}: ${name} is "catalog:" but not in the catalog`);
      const list = users.get(name) ?? [];
      list.push({ member, spec });
      users.set(name, list);
    }
  }
}
for (const [name, list] of users) {
  if (list.length < 2) continue;
  for (const { member, spec } of list) {
    if (spec !== "catalog:") problems.push(`${member}: ${name} is shared by ${list.length} members, write "catalog:" (found "${spec}")`);
  }
}

if (problems.length > 0) {
  console.error(`catalog: ${problems.length} problem(s)\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`catalog: ok (${catalog.size} shared dependencies)`);
