import { appendFileSync, readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

/**
 * Validates every /api/rbac/v2 answer the tests receive against insights-rbac's own v2 OpenAPI
 * document (vendored in fixtures/insights-rbac/). Where that document contradicts insights-rbac's
 * code, the code is followed and the difference is listed, with its reason, in
 * fixtures/insights-rbac/openapi-exceptions.json — the one reviewed list.
 */

const FIXTURES = new URL("./fixtures/insights-rbac/", import.meta.url);
const PREFIX = "/api/rbac/v2";

interface SpecException {
  pointer: string;
  set: Record<string, unknown>;
  reason: string;
}

interface Spec {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
}

const spec = parse(readFileSync(new URL("openapi-v2.yaml", FIXTURES), "utf8")) as Spec;
const exceptionsFile = JSON.parse(readFileSync(new URL("openapi-exceptions.json", FIXTURES), "utf8")) as {
  exceptions: SpecException[];
  answers: { status: number; mediaType: string; reason: string }[];
};
export const SPEC_EXCEPTIONS = exceptionsFile.exceptions;

/** The document with the reviewed exceptions applied; a pointer that no longer exists fails loudly. */
function withExceptions(document: Spec): Spec {
  const copy = structuredClone(document) as unknown as Record<string, unknown>;
  for (const exception of SPEC_EXCEPTIONS) {
    let node: unknown = copy;
    for (const raw of exception.pointer.split("/").slice(1)) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    }
    if (typeof node !== "object" || node === null) throw new Error(`openapi-exceptions.json: ${exception.pointer} is not in the document`);
    for (const [key, value] of Object.entries(exception.set)) {
      if (value === null) delete (node as Record<string, unknown>)[key];
      else (node as Record<string, unknown>)[key] = value;
    }
  }
  return copy as unknown as Spec;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true, discriminator: false }));
ajv.addSchema(spec as object, "spec");
ajv.addSchema(withExceptions(spec) as object, "patched");

/** Literal templates before parameterised ones, so /workspaces/query/ is not /workspaces/{id}/. */
const templates = Object.keys(spec.paths)
  .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`), params: (template.match(/\{/g) ?? []).length }))
  .sort((a, b) => a.params - b.params);

const pointer = (part: string) => part.replace(/~/g, "~0").replace(/\//g, "~1");
const compiled = new Map<string, ValidateFunction>();

/** validated: answers checked; withExceptions: of those, passing only thanks to the exception list. */
export const openApiStats = { validated: 0, withExceptions: 0, undocumented: 0, failures: 0 };

/** OPENAPI_STATS_FILE=<path>: each test file appends its counts (one JSON line) for reporting. */
export function reportOpenApiStats(): void {
  const statsFile = process.env["OPENAPI_STATS_FILE"];
  if (statsFile) appendFileSync(statsFile, `${JSON.stringify(openApiStats)}\n`);
}

function compile(ref: string): ValidateFunction {
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
}

/** Throws when the body does not match the document (outside the listed exceptions). */
export function validateAgainstSpec(method: string, url: string, status: number, contentType: string | null, text: string): void {
  const path = new URL(url, "http://x").pathname;
  if (!path.startsWith(`${PREFIX}/`) || path === `${PREFIX}/openapi.json`) return;
  const local = path.slice(PREFIX.length);
  const template = templates.find((t) => t.pattern.test(local))?.template;
  const m = method.toLowerCase();
  const response = template ? spec.paths[template]?.[m]?.responses[String(status)] : undefined;
  if (!template || !response) {
    openApiStats.undocumented += 1;
    return;
  }
  const operation = `${method.toUpperCase()} ${template}`;
  if (!response.content) {
    openApiStats.validated += 1;
    if (text !== "") throw new Error(`${operation} ${status}: the document has no body for this answer, got ${text.slice(0, 200)}`);
    return;
  }
  const mediaType = (contentType ?? "").split(";")[0]!.trim();
  if (exceptionsFile.answers.some((answer) => answer.status === status && answer.mediaType === mediaType)) {
    openApiStats.validated += 1;
    openApiStats.withExceptions += 1;
    return;
  }
  if (!(mediaType in response.content)) throw new Error(`${operation} ${status}: content type ${mediaType} is not one of ${Object.keys(response.content).join(", ")}`);
  const ref = `#/paths/${pointer(template)}/${m}/responses/${status}/content/${pointer(mediaType)}/schema`;
  const body: unknown = JSON.parse(text);
  const validate = compile(`patched${ref}`);
  if (!validate(body)) {
    openApiStats.failures += 1;
    const detail = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.keyword}: ${e.message} ${JSON.stringify(e.params)}`).join("; ");
    const message = `${operation} ${status} does not match insights-rbac's OpenAPI document: ${detail}\nbody: ${text.slice(0, 600)}`;
    // OPENAPI_COLLECT=1 lists every mismatch instead of failing the first test (to review the list).
    if (!process.env["OPENAPI_COLLECT"]) throw new Error(message);
    console.error(`[openapi-mismatch] ${operation} ${status} ${(validate.errors ?? []).map((e) => `${e.instancePath.replace(/\/\d+(?=\/|$)/g, "/*")}|${e.keyword}|${e.message}`).join(" ; ")}`);
    return;
  }
  openApiStats.validated += 1;
  if (!compile(`spec${ref}`)(body)) openApiStats.withExceptions += 1;
}
