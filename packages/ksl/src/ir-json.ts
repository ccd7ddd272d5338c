// Loads intermediate-representation JSON files (the reference compiler's IR format, e.g. the
// generated `rbac_v1_permissions.json`). Every malformed field is reported with its JSON path.
import type { DiagnosticSink, SourceLocation } from "./diagnostics.js";
import type {
  Cardinality,
  DynamicBody,
  DynamicName,
  DynamicRelation,
  DynamicType,
  ExtensionDefinition,
  ExtensionReference,
  NamespaceModule,
  RelationBody,
  RelationDecl,
  TypeDecl,
  TypeReference,
  Visibility,
} from "./ir.js";

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Thrown to abandon the current file after an error was reported. */
class IrFailure extends Error {}

export function loadIrModule(text: string, file: string, sink: DiagnosticSink): NamespaceModule | undefined {
  let data: Json;
  try {
    data = JSON.parse(text);
  } catch (e) {
    sink.report("invalid-ir", jsonErrorLocation(text, file, e), `not valid JSON: ${(e as Error).message}`);
    return undefined;
  }
  const reader = new IrReader(file, sink);
  try {
    return reader.module(data);
  } catch (e) {
    if (e instanceof IrFailure) return undefined;
    throw e;
  }
}

/** JSON.parse messages carry "position N"; turn it into line/column when present. */
function jsonErrorLocation(text: string, file: string, error: unknown): SourceLocation {
  const match = /position (\d+)/.exec(String((error as Error).message));
  const offset = match ? Number(match[1]) : 0;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return { file, line, column };
}

class IrReader {
  private readonly loc: SourceLocation;
  constructor(
    file: string,
    private readonly sink: DiagnosticSink,
  ) {
    this.loc = { file, line: 1, column: 1 };
  }

  private fail(path: string, message: string): never {
    this.sink.report("invalid-ir", this.loc, `${path}: ${message}`);
    throw new IrFailure(message);
  }
  private string(v: Json, path: string, optional = false): string {
    if (v === undefined && optional) return "";
    if (typeof v !== "string" || (!optional && v === "")) this.fail(path, "expected a non-empty string");
    return v;
  }
  private array(v: Json, path: string): Json[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(path, "expected an array");
    return v;
  }
  private object(v: Json, path: string): Record<string, Json> {
    if (!isObject(v)) this.fail(path, "expected an object");
    return v;
  }
  private visibility(v: Json, path: string): Visibility {
    if (v === undefined || v === "") return "public";
    if (v !== "public" && v !== "internal" && v !== "private") this.fail(path, "expected 'public', 'internal' or 'private'");
    return v;
  }
  private cardinality(v: Json, path: string): Cardinality {
    if (v === undefined || v === "") return "Any";
    if (v !== "AtMostOne" && v !== "ExactlyOne" && v !== "AtLeastOne" && v !== "Any") {
      this.fail(path, "expected 'AtMostOne', 'ExactlyOne', 'AtLeastOne' or 'Any'");
    }
    return v;
  }

  module(v: Json): NamespaceModule {
    const o = this.object(v, "$");
    return {
      name: this.string(o["name"], "$.name"),
      imports: this.array(o["imports"], "$.imports").map((x, i) => this.string(x, `$.imports[${i}]`)),
      types: this.array(o["types"], "$.types").map((x, i) => this.type(x, `$.types[${i}]`)),
      extensions: this.array(o["defined_extensions"], "$.defined_extensions").map((x, i) => this.extension(x, `$.defined_extensions[${i}]`)),
      extensionReferences: this.array(o["extension_references"], "$.extension_references").map((x, i) => this.reference(x, `$.extension_references[${i}]`)),
      loc: this.loc,
    };
  }

  private reference(v: Json, path: string): ExtensionReference {
    const o = this.object(v, path);
    const namespace = this.string(o["namespace"] ?? o["module"], `${path}.namespace`, true);
    const params: Record<string, string> = {};
    const rawParams = o["params"] === undefined ? {} : this.object(o["params"], `${path}.params`);
    for (const [key, value] of Object.entries(rawParams)) params[key] = this.string(value, `${path}.params.${key}`, true);
    const name = this.string(o["name"], `${path}.name`);
    return namespace ? { namespace, name, params, loc: this.loc } : { name, params, loc: this.loc };
  }

  private type(v: Json, path: string): TypeDecl {
    const o = this.object(v, path);
    return {
      name: this.string(o["name"], `${path}.name`),
      visibility: this.visibility(o["visibility"], `${path}.visibility`),
      relations: this.array(o["relations"], `${path}.relations`).map((x, i) => this.relation(x, `${path}.relations[${i}]`)),
      extensions: this.array(o["extensions"], `${path}.extensions`).map((x, i) => this.reference(x, `${path}.extensions[${i}]`)),
      loc: this.loc,
    };
  }

  private relation(v: Json, path: string): RelationDecl {
    const o = this.object(v, path);
    return {
      name: this.string(o["name"], `${path}.name`),
      visibility: this.visibility(o["visibility"], `${path}.visibility`),
      body: this.body(o["body"], `${path}.body`),
      extensions: this.array(o["extensions"], `${path}.extensions`).map((x, i) => this.reference(x, `${path}.extensions[${i}]`)),
      loc: this.loc,
    };
  }

  private typeReferences(v: Json, path: string): TypeReference[] {
    return this.array(v, path).map((x, i) => {
      const p = `${path}[${i}]`;
      const o = this.object(x, p);
      const ref: TypeReference = { name: this.string(o["name"], `${p}.name`), loc: this.loc };
      const ns = this.string(o["module"] ?? o["namespace"], `${p}.module`, true);
      if (ns) ref.namespace = ns;
      const sub = this.string(o["sub_relation"], `${p}.sub_relation`, true);
      if (sub) ref.subRelation = sub;
      if (o["all"] === true) ref.all = true;
      return ref;
    });
  }

  private body(v: Json, path: string): RelationBody {
    const o = this.object(v, path);
    const kind = o["kind"];
    switch (kind) {
      case "self":
        return { kind, types: this.nonEmpty(this.typeReferences(o["types"], `${path}.types`), `${path}.types`), cardinality: this.cardinality(o["cardinality"], `${path}.cardinality`), loc: this.loc };
      case "reference":
        return { kind, relation: this.string(o["relation"], `${path}.relation`), loc: this.loc };
      case "nested_reference":
        return { kind, relation: this.string(o["relation"], `${path}.relation`), subRelation: this.string(o["sub_relation"], `${path}.sub_relation`), loc: this.loc };
      case "union":
      case "intersect":
      case "except":
        return { kind, left: this.body(o["left"], `${path}.left`), right: this.body(o["right"], `${path}.right`), loc: this.loc };
      default:
        return this.fail(`${path}.kind`, "expected 'self', 'reference', 'nested_reference', 'union', 'intersect' or 'except'");
    }
  }

  private nonEmpty<T>(items: T[], path: string): T[] {
    if (items.length === 0) this.fail(path, "a 'self' body needs at least one type");
    return items;
  }

  private extension(v: Json, path: string): ExtensionDefinition {
    const o = this.object(v, path);
    return {
      name: this.string(o["name"], `${path}.name`),
      visibility: this.visibility(o["visibility"], `${path}.visibility`),
      params: this.array(o["params"], `${path}.params`).map((x, i) => this.string(x, `${path}.params[${i}]`)),
      types: this.array(o["types"], `${path}.types`).map((x, i) => this.dynamicType(x, `${path}.types[${i}]`)),
      loc: this.loc,
    };
  }

  private dynamicType(v: Json, path: string): DynamicType {
    const o = this.object(v, path);
    return {
      name: this.dynamicName(o["name"], `${path}.name`),
      visibility: this.visibility(o["visibility"], `${path}.visibility`),
      relations: this.array(o["relations"], `${path}.relations`).map((x, i) => this.dynamicRelation(x, `${path}.relations[${i}]`)),
      loc: this.loc,
    };
  }

  private dynamicRelation(v: Json, path: string): DynamicRelation {
    const o = this.object(v, path);
    return {
      name: this.dynamicName(o["name"], `${path}.name`),
      visibility: this.visibility(o["visibility"], `${path}.visibility`),
      allowDuplicates: o["ignoreduplicates"] === true,
      body: this.dynamicBody(o["body"], `${path}.body`),
      loc: this.loc,
    };
  }

  private dynamicBody(v: Json, path: string): DynamicBody {
    const o = this.object(v, path);
    const kind = o["kind"];
    switch (kind) {
      case "self":
        return { kind, types: this.nonEmpty(this.typeReferences(o["types"], `${path}.types`), `${path}.types`), cardinality: this.cardinality(o["cardinality"], `${path}.cardinality`), loc: this.loc };
      case "reference":
        return { kind, relation: this.dynamicName(o["relation"], `${path}.relation`), loc: this.loc };
      case "nested_reference":
        return { kind, relation: this.dynamicName(o["relation"], `${path}.relation`), subRelation: this.dynamicName(o["sub_relation"], `${path}.sub_relation`), loc: this.loc };
      case "union":
      case "intersect":
      case "except":
        return { kind, left: this.dynamicBody(o["left"], `${path}.left`), right: this.dynamicBody(o["right"], `${path}.right`), loc: this.loc };
      default:
        return this.fail(`${path}.kind`, "expected 'self', 'reference', 'nested_reference', 'union', 'intersect' or 'except'");
    }
  }

  private dynamicName(v: Json, path: string): DynamicName {
    const o = this.object(v, path);
    switch (o["kind"]) {
      case "literal":
        return { kind: "literal", value: this.string(o["value"], `${path}.value`) };
      case "param":
        return { kind: "param", param: this.string(o["param"], `${path}.param`) };
      case "template":
        return { kind: "template", segments: this.array(o["segments"], `${path}.segments`).map((x, i) => this.dynamicName(x, `${path}.segments[${i}]`)) };
      default:
        return this.fail(`${path}.kind`, "expected 'literal', 'param' or 'template'");
    }
  }
}
