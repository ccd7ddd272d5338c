// The semantic model: all input namespaces merged, then extensions applied in the reference
// compiler's order (namespaces sorted; namespace decorators in file order; types sorted with their
// decorators; relations sorted with theirs).
import type { DiagnosticSink, SourceLocation } from "./diagnostics.js";
import type { DynamicBody, DynamicName, ExtensionDefinition, ExtensionReference, NamespaceModule, RelationBody, Visibility } from "./ir.js";

export interface RelationModel {
  name: string;
  visibility: Visibility;
  body: RelationBody;
  extensions: ExtensionReference[];
  loc: SourceLocation;
}

export interface TypeModel {
  namespace: string;
  name: string;
  visibility: Visibility;
  relations: Map<string, RelationModel>;
  extensions: ExtensionReference[];
  loc: SourceLocation;
}

export interface NamespaceModel {
  name: string;
  imports: Set<string>;
  types: Map<string, TypeModel>;
  extensions: Map<string, ExtensionDefinition>;
  references: ExtensionReference[];
  loc: SourceLocation;
}

export type SchemaModel = Map<string, NamespaceModel>;

const IMPLICIT_PARAMS = new Set(["NAMESPACE", "TYPE", "RELATION"]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const at = (loc: SourceLocation): string => `${loc.file}:${loc.line}:${loc.column}`;
const byName = <T>(map: Map<string, T>): T[] => [...map.keys()].sort().map((k) => map.get(k)!);

/** Merges parsed modules into one model, reporting duplicate namespaces, types, relations and extensions. */
export function buildModel(modules: readonly NamespaceModule[], sink: DiagnosticSink): SchemaModel {
  const model: SchemaModel = new Map();
  for (const module of modules) {
    const existing = model.get(module.name);
    if (existing) {
      sink.report("duplicate-namespace", module.loc, `namespace '${module.name}' is already declared at ${at(existing.loc)}`);
      continue;
    }
    const ns: NamespaceModel = {
      name: module.name,
      imports: new Set(module.imports),
      types: new Map(),
      extensions: new Map(),
      references: [...module.extensionReferences],
      loc: module.loc,
    };
    model.set(ns.name, ns);
    for (const decl of module.types) {
      const prior = ns.types.get(decl.name);
      if (prior) {
        sink.report("duplicate-type", decl.loc, `type '${ns.name}.${decl.name}' is already declared at ${at(prior.loc)}`);
        continue;
      }
      const type: TypeModel = {
        namespace: ns.name,
        name: decl.name,
        visibility: decl.visibility,
        relations: new Map(),
        extensions: [...decl.extensions],
        loc: decl.loc,
      };
      ns.types.set(type.name, type);
      for (const rel of decl.relations) {
        const priorRel = type.relations.get(rel.name);
        if (priorRel) {
          sink.report("duplicate-relation", rel.loc, `relation '${rel.name}' is already declared on '${ns.name}.${type.name}' at ${at(priorRel.loc)}`);
          continue;
        }
        type.relations.set(rel.name, { ...rel, extensions: [...rel.extensions] });
      }
    }
    for (const ext of module.extensions) {
      const prior = ns.extensions.get(ext.name);
      if (prior) {
        sink.report("duplicate-extension", ext.loc, `extension '${ns.name}.${ext.name}' is already declared at ${at(prior.loc)}`);
        continue;
      }
      ns.extensions.set(ext.name, ext);
    }
  }
  for (const ns of model.values()) {
    for (const imported of ns.imports) {
      if (!model.has(imported)) sink.report("unknown-namespace", ns.loc, `namespace '${ns.name}' imports '${imported}', which no input declares`);
    }
  }
  return model;
}

/** Applies every decorator in the reference order; mutates the model. */
export function applyExtensions(model: SchemaModel, sink: DiagnosticSink): void {
  for (const ns of byName(model)) {
    for (const ref of ns.references) applyExtension(model, ref, ns, undefined, undefined, sink);
    for (const type of byName(ns.types)) {
      for (const ref of type.extensions) applyExtension(model, ref, ns, type, undefined, sink);
      for (const rel of byName(type.relations)) {
        for (const ref of rel.extensions) applyExtension(model, ref, ns, type, rel, sink);
      }
    }
  }
}

function applyExtension(model: SchemaModel, ref: ExtensionReference, caller: NamespaceModel, type: TypeModel | undefined, relation: RelationModel | undefined, sink: DiagnosticSink): void {
  const targetName = ref.namespace ?? caller.name;
  const label = `@${targetName}.${ref.name}`;
  if (targetName !== caller.name && !caller.imports.has(targetName)) {
    sink.report("namespace-not-imported", ref.loc, `${label}: namespace '${targetName}' must be imported by '${caller.name}'`);
    return;
  }
  const target = model.get(targetName);
  if (!target) {
    sink.report("unknown-namespace", ref.loc, `${label}: no input declares namespace '${targetName}'`);
    return;
  }
  const extension = target.extensions.get(ref.name);
  if (!extension) {
    sink.report("unknown-extension", ref.loc, `${label}: namespace '${targetName}' has no extension '${ref.name}'`);
    return;
  }
  if (extension.visibility !== "public" && targetName !== caller.name) {
    sink.report("extension-not-visible", ref.loc, `${label}: extension is ${extension.visibility} to namespace '${targetName}'`);
    return;
  }
  // Implicit parameters override user arguments of the same name.
  const params: Record<string, string> = { ...ref.params, NAMESPACE: caller.name };
  if (type) params["TYPE"] = type.name;
  if (relation) params["RELATION"] = relation.name;

  const missing = new Set<string>();
  const evaluate = (name: DynamicName): string => {
    switch (name.kind) {
      case "literal":
        return name.value;
      case "param": {
        const value = params[name.param];
        // Implicit parameters that do not apply here (TYPE at namespace level, ...) are empty, as in the reference compiler.
        if (value === undefined && !IMPLICIT_PARAMS.has(name.param)) missing.add(name.param);
        return value ?? "";
      }
      case "template":
        return name.segments.map(evaluate).join("");
    }
  };
  const evaluateBody = (body: DynamicBody): RelationBody => {
    switch (body.kind) {
      case "self":
        return { ...body, types: body.types.map((t) => ({ ...t, loc: ref.loc })), loc: ref.loc };
      case "reference":
        return { kind: "reference", relation: evaluate(body.relation), loc: ref.loc };
      case "nested_reference":
        return { kind: "nested_reference", relation: evaluate(body.relation), subRelation: evaluate(body.subRelation), loc: ref.loc };
      default:
        return { kind: body.kind, left: evaluateBody(body.left), right: evaluateBody(body.right), loc: ref.loc };
    }
  };

  // Evaluate everything first so a bad argument adds nothing half-way.
  const planned = extension.types.map((dt) => ({
    dt,
    typeName: evaluate(dt.name),
    relations: dt.relations.map((dr) => ({ dr, name: evaluate(dr.name), body: evaluateBody(dr.body) })),
  }));
  if (missing.size > 0) {
    const names = [...missing]
      .sort()
      .map((p) => `'${p}'`)
      .join(", ");
    sink.report("missing-extension-argument", ref.loc, `${label}: missing argument ${names} (declared parameters: ${extension.params.join(", ") || "none"})`);
    return;
  }
  for (const step of planned) {
    for (const name of [step.typeName, ...step.relations.map((r) => r.name)]) {
      if (!IDENTIFIER.test(name)) {
        sink.report("invalid-generated-name", ref.loc, `${label}: generated name '${name}' is not a valid identifier`);
        return;
      }
    }
  }
  for (const step of planned) {
    let targetType = target.types.get(step.typeName);
    if (!targetType) {
      targetType = {
        namespace: target.name,
        name: step.typeName,
        visibility: step.dt.visibility,
        relations: new Map(),
        extensions: [],
        loc: ref.loc,
      };
      target.types.set(targetType.name, targetType);
    }
    for (const { dr, name, body } of step.relations) {
      const existing = targetType.relations.get(name);
      if (existing) {
        // allow_duplicates: the first definition wins and the new copy is dropped.
        if (!dr.allowDuplicates) {
          sink.report("duplicate-relation", ref.loc, `${label}: relation '${name}' already exists on '${target.name}.${targetType.name}' (defined at ${at(existing.loc)})`);
        }
        continue;
      }
      targetType.relations.set(name, { name, visibility: dr.visibility, body, extensions: [], loc: ref.loc });
    }
  }
}

export { byName };
