import { appendFileSync, readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

/**
 * Validates every /api/rbac/v2 and /api/rbac/v1 answer the tests receive against insights-rbac's
 * own v2 and v1 OpenAPI documents (v2 vendored in fixtures/insights-rbac/, v1 in ../openapi/; sources in their READMEs).
 * Where a document contradicts insights-rbac's code, the code is followed and the difference is
 * listed, with its reason, in fixtures/insights-rbac/openapi-exceptions.json — the one reviewed
 * list (an entry without `document` is about the v2 document).
 */

const FIXTURES = new URL("./fixtures/insights-rbac/", import.meta.url);

type DocumentName = "v1" | "v2";

interface SpecException {
  document?: DocumentName;
  pointer: string;
  set: Record<string, unknown>;
  reason: string;
}

interface Spec {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
}

const exceptionsFile = JSON.parse(readFileSync(new URL("openapi-exceptions.json", FIXTURES), "utf8")) as {
  exceptions: SpecException[];
  answers: { document?: DocumentName; status: number; mediaType: string; reason: string }[];
  notValidated?: { document?: DocumentName; operation: string; status: number; reason: string }[];
};
export const SPEC_EXCEPTIONS = exceptionsFile.exceptions;
const documentOf = (entry: { document?: DocumentName }): DocumentName => entry.document ?? "v2";

/** The document with the reviewed exceptions applied; a pointer that no longer exists fails loudly. */
function withExceptions(name: DocumentName, document: Spec): Spec {
  const copy = structuredClone(document) as unknown as Record<string, unknown>;
  for (const exception of SPEC_EXCEPTIONS.filter((e) => documentOf(e) === name)) {
    let node: unknown = copy;
    for (const raw of exception.pointer.split("/").slice(1)) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    }
    if (typeof node !== "object" || node === null) throw new Error(`openapi-exceptions.json: ${exception.pointer} is not in the ${name} document`);
    for (const [key, value] of Object.entries(exception.set)) {
      if (value === null) delete (node as Record<string, unknown>)[key];
      else (node as Record<string, unknown>)[key] = value;
    }
  }
  return copy as unknown as Spec;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true, discriminator: false }));

interface Stats {
  validated: number;
  withExceptions: number;
  undocumented: number;
  failures: number;
  notValidated: number;
}
const newStats = (): Stats => ({ validated: 0, withExceptions: 0, undocumented: 0, failures: 0, notValidated: 0 });

/**
 * validated: answers checked; withExceptions: of those, passing only thanks to the exception list;
 * notValidated: answers of a known Gatehouse gap (the list's `notValidated`).
 */
export const openApiStats = newStats();
export const openApiStatsV1 = newStats();

/**
 * OPENAPI_STATS_FILE=<path>: each test file appends its counts (one JSON line) for reporting
 * (test/file-setup.ts, after each file), then counts from zero for the next file of the worker.
 */
export function reportOpenApiStats(): void {
  const statsFile = process.env["OPENAPI_STATS_FILE"];
  if (statsFile) appendFileSync(statsFile, `${JSON.stringify({ ...openApiStats, v1: openApiStatsV1 })}\n`);
  Object.assign(openApiStats, newStats());
  Object.assign(openApiStatsV1, newStats());
}

function loadDocument(name: DocumentName, file: URL, prefix: string, stats: Stats) {
  const text = readFileSync(file, "utf8");
  const spec = (file.pathname.endsWith(".json") ? JSON.parse(text) : parse(text)) as Spec;
  const patched = withExceptions(name, spec);
  ajv.addSchema(spec as object, name);
  ajv.addSchema(patched as object, `${name}-patched`);
  /** Literal templates before parameterised ones, so /workspaces/query/ is not /workspaces/{id}/. */
  const templates = Object.keys(spec.paths)
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`), params: (template.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.params - b.params);
  return { name, prefix, spec, patched, templates, stats };
}

// The v1 document is the one the service serves at /api/rbac/v1/openapi.json (vendored beside the sources).
const documents = [
  loadDocument("v2", new URL("openapi-v2.yaml", FIXTURES), "/api/rbac/v2", openApiStats),
  loadDocument("v1", new URL("../openapi/insights-rbac-v1.json", import.meta.url), "/api/rbac/v1", openApiStatsV1),
];

const pointer = (part: string) => part.replace(/~/g, "~0").replace(/\//g, "~1");
const compiled = new Map<string, ValidateFunction>();

function compile(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
}

/** Throws when the body does not match its document (outside the listed exceptions). */
export function validateAgainstSpec(method: string, url: string, status: number, contentType: string | null, text: string): void {
  const path = new URL(url, "http://x").pathname;
  const doc = documents.find((d) => path.startsWith(`${d.prefix}/`));
  if (!doc || path === `${doc.prefix}/openapi.json`) return;
  const { spec, patched, stats } = doc;
  const local = path.slice(doc.prefix.length);
  const template = doc.templates.find((t) => t.pattern.test(local))?.template;
  const m = method.toLowerCase();
  // Answers are looked up in the patched document: an exception may give a documented answer its body.
  const response = template ? patched.paths[template]?.[m]?.responses[String(status)] : undefined;
  if (!template || !response) {
    stats.undocumented += 1;
    return;
  }
  const operation = `${method.toUpperCase()} ${doc.prefix}${template}`;
  if ((exceptionsFile.notValidated ?? []).some((gap) => documentOf(gap) === doc.name && gap.operation === `${method.toUpperCase()} ${template}` && gap.status === status)) {
    stats.notValidated += 1;
    return;
  }
  if (!response.content) {
    stats.validated += 1;
    if (text !== "") throw new Error(`${operation} ${status}: the document has no body for this answer, got ${text.slice(0, 200)}`);
    return;
  }
  const mediaType = (contentType ?? "").split(";")[0]!.trim();
  if (exceptionsFile.answers.some((answer) => documentOf(answer) === doc.name && answer.status === status && answer.mediaType === mediaType)) {
    stats.validated += 1;
    stats.withExceptions += 1;
    return;
  }
  const documented = mediaType in response.content ? mediaType : "*/*" in response.content ? "*/*" : null;
  if (!documented) throw new Error(`${operation} ${status}: content type ${mediaType} is not one of ${Object.keys(response.content).join(", ")}`);
  const ref = `#/paths/${pointer(template)}/${m}/responses/${status}/content/${pointer(documented)}/schema`;
  const body: unknown = JSON.parse(text);
  const validate = compile(`${doc.name}-patched${ref}`);
  if (!validate(body)) {
    stats.failures += 1;
    const detail = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.keyword}: ${e.message} ${JSON.stringify(e.params)}`).join("; ");
    const message = `${operation} ${status} does not match insights-rbac's ${doc.name} OpenAPI document: ${detail}\nbody: ${text.slice(0, 600)}`;
    // OPENAPI_COLLECT=1 lists every mismatch instead of failing the first test (to review the list).
    if (!process.env["OPENAPI_COLLECT"]) throw new Error(message);
    console.error(`[openapi-mismatch] ${operation} ${status} ${(validate.errors ?? []).map((e) => `${e.instancePath.replace(/\/\d+(?=\/|$)/g, "/*")}|${e.keyword}|${e.message}`).join(" ; ")}`);
    return;
  }
  stats.validated += 1;
  const original = spec.paths[template]?.[m]?.responses[String(status)]?.content?.[documented];
  if (!original || !compile(`${doc.name}${ref}`)(body)) stats.withExceptions += 1;
}
