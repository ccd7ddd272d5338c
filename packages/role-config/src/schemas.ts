// Shapes of the role and permission files (validated against the repository's JSON Schemas,
// `schemas/roles.schema` and `schemas/permissions.schema`, see json-schema.ts).

export const V1_VERBS = ["*", "read", "write", "create", "update", "upload", "delete", "list", "link", "unlink", "order", "execute", "view", "grant", "revoke"] as const;
export type V1Verb = (typeof V1_VERBS)[number];

/** `app:resource:verb`, verb from the fixed list. */
export const V1_PERMISSION = new RegExp(`^[^:\\s]+:[^:\\s]+:(${V1_VERBS.map((v) => v.replace("*", "\\*")).join("|")})$`);

export interface AttributeFilter {
  key: string;
  operation: "equal" | "in";
  value: string;
}

export interface AccessEntry {
  permission: string;
  resourceDefinitions?: Array<{ attributeFilter?: AttributeFilter }>;
}

export interface RoleDefinition {
  name: string;
  display_name?: string;
  description: string;
  system: boolean;
  platform_default: boolean;
  admin_default: boolean;
  version: number;
  access?: AccessEntry[];
  external?: { id: string; tenant: string };
}

export interface PermissionVerb {
  verb: V1Verb;
  description?: string;
  requires?: unknown[];
}

/** V1 permission catalogue: application -> resource -> verbs (resources in file order). */
export type PermissionCatalogue = Record<string, Record<string, PermissionVerb[]>>;
