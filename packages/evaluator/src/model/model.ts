// The compiled, validated model. Every (definition, relation-or-permission) pair gets a global
// integer "slot" so the graph and the algorithms index plain arrays instead of hashing strings.
import type { ExpressionAst } from "../schema/ast.js";

export interface AllowedSubject {
  type: string;
  typeIndex: number;
  /** `T#rel`: subject sets of T through rel. */
  relation?: string;
  /** `T:*`. */
  wildcard: boolean;
  /** `with expiration`: relationships of this shape may carry an expiry time. */
  expiration: boolean;
}

export interface RelationDef {
  kind: "relation";
  definition: string;
  name: string;
  slot: number;
  allowed: AllowedSubject[];
}

export interface PermissionDef {
  kind: "permission";
  definition: string;
  name: string;
  slot: number;
  expression: ExpressionAst;
}

export interface Definition {
  name: string;
  index: number;
  relations: ReadonlyMap<string, RelationDef>;
  permissions: ReadonlyMap<string, PermissionDef>;
}

/** Compiled permission expression; names are resolved to slots. */
export type Op =
  | { k: "slot"; slot: number }
  | { k: "arrow"; tupleset: number; targetByType: Int32Array; label: string }
  | { k: "union"; ops: Op[] }
  | { k: "intersection"; ops: Op[] }
  | { k: "exclusion"; left: Op; right: Op }
  | { k: "nil" };

export interface Slot {
  typeIndex: number;
  name: string;
  /** Stored relation (true) or computed permission (false). */
  stored: boolean;
  allowed: AllowedSubject[];
  op: Op | undefined;
}

export class Model {
  readonly definitions: ReadonlyMap<string, Definition>;
  readonly typeNames: readonly string[];
  readonly slots: readonly Slot[];
  private readonly slotsByType: ReadonlyArray<ReadonlyMap<string, number>>;

  constructor(definitions: Definition[], slots: Slot[], slotsByType: Array<Map<string, number>>) {
    this.definitions = new Map(definitions.map((d) => [d.name, d]));
    this.typeNames = definitions.map((d) => d.name);
    this.slots = slots;
    this.slotsByType = slotsByType;
  }

  typeIndex(type: string): number | undefined {
    return this.definitions.get(type)?.index;
  }

  /** Slot of a relation or permission on a type, or -1. */
  slotOf(typeIndex: number, name: string): number {
    return this.slotsByType[typeIndex]?.get(name) ?? -1;
  }

  isRelation(type: string, name: string): boolean {
    return this.definitions.get(type)?.relations.has(name) ?? false;
  }

  isPermission(type: string, name: string): boolean {
    return this.definitions.get(type)?.permissions.has(name) ?? false;
  }

  get slotCount(): number {
    return this.slots.length;
  }
}
