#!/usr/bin/env node
// Writes the OpenAPI v3 schema of one version of a published CustomResourceDefinition as compact JSON
// (descriptions and null keywords dropped) for the manifest tests: node scripts/vendor-crd-schema.mjs <crd.yaml> <version> <out.json> <source>
// <source> says where the CRD file came from (repository, path, release or commit); it is kept in the output.
import { readFileSync, writeFileSync } from "node:fs";
import { parse } from "yaml";

const [file, version, out, source] = process.argv.slice(2);
if (!file || !version || !out || !source) {
  console.error("usage: vendor-crd-schema.mjs <crd.yaml> <version> <out.json> <source>");
  process.exit(2);
}
const crd = parse(readFileSync(file, "utf8"));
const served = crd.spec.versions.find((v) => v.name === version);
if (!served) {
  console.error(`${file}: no version ${version} (has ${crd.spec.versions.map((v) => v.name).join(", ")})`);
  process.exit(1);
}
const compact = (node) => {
  if (Array.isArray(node)) return node.map(compact);
  // A null keyword (upstream's `anyOf: null`) means absent, as the API server reads it.
  if (node && typeof node === "object")
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => k !== "description" && v !== null)
        .map(([k, v]) => [k, compact(v)]),
    );
  return node;
};
const document = {
  source,
  group: crd.spec.group,
  kind: crd.spec.names.kind,
  version,
  schema: compact(served.schema.openAPIV3Schema),
};
writeFileSync(out, `${JSON.stringify(document)}\n`);
console.log(`${out}: ${crd.spec.names.kind} ${crd.spec.group}/${version}`);
