// Semantic checks over the model after extensions are applied: referenced types exist and are
// visible, references name existing relations, and traversals reach relations on every target.
import type { DiagnosticSink } from "./diagnostics.js";
import type { RelationBody, TypeReference } from "./ir.js";
import { byName, type SchemaModel, type TypeModel } from "./schema.js";

/** The `[...]` types of a body, left to right (what `t_<relation>` may hold). */
export function directTypes(body: RelationBody): TypeReference[] {
  switch (body.kind) {
    case "self":
      return body.types;
    case "reference":
    case "nested_reference":
      return [];
    default:
      return [...directTypes(body.left), ...directTypes(body.right)];
  }
}

/** Resolves a box type from the point of view of `owner`; undefined when it does not exist. */
export function resolveType(model: SchemaModel, owner: TypeModel, ref: TypeReference): TypeModel | undefined {
  return model.get(ref.namespace ?? owner.namespace)?.types.get(ref.name);
}

export function checkModel(model: SchemaModel, sink: DiagnosticSink): void {
  for (const ns of byName(model)) {
    for (const type of byName(ns.types)) {
      for (const rel of byName(type.relations)) checkBody(model, type, rel.name, rel.body, sink);
    }
  }
}

function checkBody(model: SchemaModel, owner: TypeModel, relName: string, body: RelationBody, sink: DiagnosticSink): void {
  const where = `${owner.namespace}.${owner.name}#${relName}`;
  switch (body.kind) {
    case "self":
      for (const ref of body.types) checkTypeReference(model, owner, where, ref, sink);
      return;
    case "reference":
      if (!owner.relations.has(body.relation)) {
        sink.report("unknown-relation", body.loc, `${where}: '${body.relation}' is not a relation of '${owner.namespace}.${owner.name}'`);
      }
      return;
    case "nested_reference": {
      const left = owner.relations.get(body.relation);
      if (!left) {
        sink.report("unknown-relation", body.loc, `${where}: '${body.relation}' is not a relation of '${owner.namespace}.${owner.name}'`);
        return;
      }
      const targets = directTypes(left.body);
      if (targets.length === 0) {
        sink.report("traversal-without-direct-types", body.loc, `${where}: '${body.relation}.${body.subRelation}' traverses '${body.relation}', which has no '[...]' types to follow`);
        return;
      }
      for (const ref of targets) {
        const target = resolveType(model, owner, ref);
        if (target && !target.relations.has(body.subRelation)) {
          sink.report("invalid-traversal", body.loc, `${where}: '${body.relation}.${body.subRelation}' reaches '${target.namespace}.${target.name}', which has no relation '${body.subRelation}'`);
        }
      }
      return;
    }
    default:
      checkBody(model, owner, relName, body.left, sink);
      checkBody(model, owner, relName, body.right, sink);
  }
}

function checkTypeReference(model: SchemaModel, owner: TypeModel, where: string, ref: TypeReference, sink: DiagnosticSink): void {
  const nsName = ref.namespace ?? owner.namespace;
  const shown = ref.all && ref.namespace === "rbac" && ref.name === "principal" ? "bool (rbac.principal)" : `${nsName}.${ref.name}`;
  const ns = model.get(nsName);
  if (!ns) {
    sink.report("unknown-type", ref.loc, `${where}: type '${shown}' does not exist (no namespace '${nsName}')`);
    return;
  }
  const target = ns.types.get(ref.name);
  if (!target) {
    sink.report("unknown-type", ref.loc, `${where}: type '${shown}' does not exist`);
    return;
  }
  const visible = target.visibility === "public" || (target.visibility === "internal" && target.namespace === owner.namespace);
  if (!visible) {
    sink.report("type-not-visible", ref.loc, `${where}: type '${shown}' is ${target.visibility} and cannot be referenced from namespace '${owner.namespace}'`);
    return;
  }
  if (ref.subRelation !== undefined && !target.relations.has(ref.subRelation)) {
    sink.report("unknown-subject-relation", ref.loc, `${where}: '${nsName}.${ref.name}' has no relation '${ref.subRelation}'`);
  }
}
