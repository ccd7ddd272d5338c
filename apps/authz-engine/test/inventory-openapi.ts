// Validates HTTP/JSON answers against inventory-api's own OpenAPI document (vendored unchanged in
// fixtures/inventory-api/, source and commit in fixtures/README.md): 200 answers against the
// operation's response schema, others against its `default` (google.rpc.Status).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { fixturesDir } from "./helpers.js";

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
const document = parse(readFileSync(join(fixturesDir, "inventory-api", "openapi.yaml"), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
};

// OpenAPI 3.0 formats (int32, uint32, int64 as protoc-gen-openapi writes them) describe, not restrict.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ components: document.components }, "inventory-openapi");
const rewrite = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"inventory-openapi#/components/'));

const compiled = new Map<string, ValidateFunction>();
export const openApiStats = { validated: 0 };

/** Throws (naming the path and the schema errors) unless `body` is what the document says `method path` answers with `status`. */
export function expectDocumented(method: string, path: string, status: number, body: unknown): void {
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${method} ${path} is not in inventory-api's openapi.yaml`);
  const key = status === 200 ? "200" : "default";
  const schema = operation.responses[key]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${path} documents no ${key} JSON answer`);
  const id = `${method} ${path} ${key}`;
  let validate = compiled.get(id);
  if (!validate) {
    validate = ajv.compile(rewrite(schema) as object);
    compiled.set(id, validate);
  }
  if (!validate(body)) throw new Error(`${id}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 500)}`);
  openApiStats.validated++;
}
