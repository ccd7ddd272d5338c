// JSON-Schema validation of role and permission files with ajv: every violation of a file is
// reported (allErrors), each with the JSON path of the offending value.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

export interface SchemaViolation {
  /** `$.roles[2].access[0].permission` */
  path: string;
  message: string;
}

/** JSON pointer (`/roles/2/name`) -> `$.roles[2].name`. */
export function pointerToPath(pointer: string): string {
  if (pointer === "") return "$";
  return pointer
    .split("/")
    .slice(1)
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((acc, key) => (/^\d+$/.test(key) ? `${acc}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${acc}.${key}` : `${acc}[${JSON.stringify(key)}]`), "$");
}

/** Human wording of one ajv error; names the property for `required` / `additionalProperties`. */
function describe(error: ErrorObject): SchemaViolation {
  const at = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { path: at, message: `must have required property '${String(params.missingProperty)}'` };
    case "additionalProperties":
      return { path: at, message: `must not have property '${String(params.additionalProperty)}'` };
    case "enum":
      return { path: at, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "oneOf": {
      const branches = (error.parentSchema as { oneOf?: Array<{ required?: string[] }> } | undefined)?.oneOf ?? [];
      const names = branches.map((b) => b.required?.map((r) => `'${r}'`).join(" and "));
      const matched = params.passingSchemas === null ? "none" : "more than one";
      return names.every(Boolean)
        ? { path: at, message: `must have exactly one of ${names.join(" or ")} (${matched} present)` }
        : { path: at, message: error.message ?? "must match exactly one schema in oneOf" };
    }
    default:
      return { path: at, message: error.message ?? error.keyword };
  }
}

export class JsonSchemaValidator {
  private readonly validate: ValidateFunction;

  constructor(schema: object) {
    const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
    this.validate = ajv.compile(schema);
  }

  /** Every violation of `data`; empty when it is valid. */
  violations(data: unknown): SchemaViolation[] {
    if (this.validate(data)) return [];
    // The branches of a failed oneOf repeat what the oneOf error itself says.
    const errors = (this.validate.errors ?? []).filter((e) => !/\/oneOf\/\d+\//.test(e.schemaPath));
    return errors.map(describe);
  }
}
