// Intermediate representation of a KSL namespace (the shape of the reference compiler's IR JSON),
// plus source positions for diagnostics.
import type { SourceLocation } from "./diagnostics.js";

export type Visibility = "public" | "internal" | "private";
export type Cardinality = "AtMostOne" | "ExactlyOne" | "AtLeastOne" | "Any";

/** A type in a `[...]` box. `namespace` undefined means the namespace that owns the relation. */
export interface TypeReference {
  namespace?: string;
  name: string;
  subRelation?: string;
  /** Public wildcard (`bool` is `rbac.principal` with `all`). */
  all?: boolean;
  loc: SourceLocation;
}

export type SetOperator = "union" | "intersect" | "except";

export type RelationBody =
  | { kind: "self"; types: TypeReference[]; cardinality: Cardinality; loc: SourceLocation }
  | { kind: "reference"; relation: string; loc: SourceLocation }
  | { kind: "nested_reference"; relation: string; subRelation: string; loc: SourceLocation }
  | { kind: SetOperator; left: RelationBody; right: RelationBody; loc: SourceLocation };

/** A decorator: `@ns.name(k:'v', ...)`. `namespace` undefined means the calling namespace. */
export interface ExtensionReference {
  namespace?: string;
  name: string;
  params: Record<string, string>;
  loc: SourceLocation;
}

export interface RelationDecl {
  name: string;
  visibility: Visibility;
  body: RelationBody;
  extensions: ExtensionReference[];
  loc: SourceLocation;
}

export interface TypeDecl {
  name: string;
  visibility: Visibility;
  relations: RelationDecl[];
  extensions: ExtensionReference[];
  loc: SourceLocation;
}

/** Template names: a literal, a `${param}`, or a backtick concatenation of pieces. */
export type DynamicName = { kind: "literal"; value: string } | { kind: "param"; param: string } | { kind: "template"; segments: DynamicName[] };

export type DynamicBody =
  | { kind: "self"; types: TypeReference[]; cardinality: Cardinality; loc: SourceLocation }
  | { kind: "reference"; relation: DynamicName; loc: SourceLocation }
  | { kind: "nested_reference"; relation: DynamicName; subRelation: DynamicName; loc: SourceLocation }
  | { kind: SetOperator; left: DynamicBody; right: DynamicBody; loc: SourceLocation };

export interface DynamicRelation {
  name: DynamicName;
  visibility: Visibility;
  allowDuplicates: boolean;
  body: DynamicBody;
  loc: SourceLocation;
}

export interface DynamicType {
  name: DynamicName;
  visibility: Visibility;
  relations: DynamicRelation[];
  loc: SourceLocation;
}

export interface ExtensionDefinition {
  name: string;
  visibility: Visibility;
  params: string[];
  types: DynamicType[];
  loc: SourceLocation;
}

/** One input file's namespace. */
export interface NamespaceModule {
  name: string;
  imports: string[];
  types: TypeDecl[];
  extensions: ExtensionDefinition[];
  /** Namespace-level decorators, in file order. */
  extensionReferences: ExtensionReference[];
  loc: SourceLocation;
}
