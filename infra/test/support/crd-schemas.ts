// Validation of custom resources (ServiceMonitor, PrometheusRule, Route, ExternalSecret) against the
// OpenAPI schemas of their published CRDs, vendored in test/schemas/ (source and release in each
// file and in test/schemas/README.md; refreshed with scripts/vendor-crd-schema.mjs).
import { readdirSync, readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import type { K8sObject } from "./mocks.js";

interface VendoredSchema {
  source: string;
  group: string;
  kind: string;
  version: string;
  schema: Record<string, unknown>;
}

const SCHEMA_DIR = new URL("../schemas/", import.meta.url);

/**
 * The API server drops fields a structural schema does not declare (pruning) and `kubectl apply
 * --validate=strict` refuses them; the tests refuse them too, so a misspelt field fails here
 * instead of vanishing in the cluster.
 */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, strict(s)])) : strict(v)]),
  );
  if (out["x-kubernetes-int-or-string"] === true && out["type"] === undefined && out["anyOf"] === undefined) out["anyOf"] = [{ type: "integer" }, { type: "string" }];
  if (out["properties"] && out["additionalProperties"] === undefined && out["x-kubernetes-preserve-unknown-fields"] !== true) out["additionalProperties"] = false;
  return out;
}

/** CRD patterns are Go (RE2) syntax: its `(?i)` group (applying to the whole pattern where they use it) is JavaScript's `i` flag. */
const goRegExp = Object.assign((pattern: string, flags: string) => (pattern.includes("(?i)") ? new RegExp(pattern.replaceAll("(?i)", ""), `${flags}i`) : new RegExp(pattern, flags)), {
  code: "goRegExp",
});

// Kubernetes' extension keywords carry no validation here; formats (int32, date-time, ...) are not checked.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, code: { regExp: goRegExp } });

export const CRD_SCHEMAS: Map<string, VendoredSchema & { validate: ValidateFunction }> = new Map(
  readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => {
      const vendored = JSON.parse(readFileSync(new URL(f, SCHEMA_DIR), "utf8")) as VendoredSchema;
      return [`${vendored.group}/${vendored.version}/${vendored.kind}`, { ...vendored, validate: ajv.compile(strict(vendored.schema) as object) }];
    }),
);

/** Throws with every schema error of a custom resource, or when no vendored CRD schema covers its kind. */
export function validateCustomResource(obj: K8sObject): void {
  const entry = CRD_SCHEMAS.get(`${obj.apiVersion}/${obj.kind}`);
  if (!entry) throw new Error(`no vendored CRD schema for ${obj.apiVersion} ${obj.kind}`);
  if (!entry.validate(obj)) throw new Error(`${obj.kind}: ${ajv.errorsText(entry.validate.errors, { separator: "; ", dataVar: "" })}`);
}
