// zod schemas of the role and permission files (the shapes of rbac-config's roles.schema /
// permissions.schema), plus the list of applications modelled in KSL.
import { z } from "zod";

export const V1_VERBS = ["*", "read", "write", "create", "update", "upload", "delete", "list", "link", "unlink", "order", "execute", "view", "grant", "revoke"] as const;
export type V1Verb = (typeof V1_VERBS)[number];

/** `app:resource:verb`, verb from the fixed list. */
export const V1_PERMISSION = new RegExp(`^[^:\\s]+:[^:\\s]+:(${V1_VERBS.map((v) => v.replace("*", "\\*")).join("|")})$`);

const attributeFilter = z.strictObject({
  key: z.string().min(1),
  operation: z.enum(["equal", "in"]),
  value: z.string(),
});

const accessEntry = z.strictObject({
  permission: z.string().regex(V1_PERMISSION, "must be 'app:resource:verb' with a known verb (or '*')"),
  resourceDefinitions: z.array(z.object({ attributeFilter })).optional(),
});

export const roleSchema = z
  .strictObject({
    name: z.string().min(1),
    display_name: z.string().min(1).optional(),
    description: z.string().min(1),
    system: z.boolean(),
    platform_default: z.boolean().default(false),
    admin_default: z.boolean().default(false),
    version: z.int().min(1),
    access: z.array(accessEntry).optional(),
    external: z.strictObject({ id: z.string().min(1), tenant: z.string().min(1) }).optional(),
  })
  .refine((r) => (r.access === undefined) !== (r.external === undefined), {
    message: "exactly one of 'access' or 'external' is required",
  });

export const roleFileSchema = z.strictObject({ roles: z.array(roleSchema) });

const permissionVerb = z.strictObject({
  verb: z.enum(V1_VERBS),
  description: z.string().optional(),
  requires: z.array(z.enum(V1_VERBS)).optional(),
});

/** `{ "<resource>": [{ verb, description?, requires? }] }` for one application. */
export const permissionFileSchema = z
  .record(z.string().min(1), z.array(permissionVerb).min(1))
  .refine((o) => Object.keys(o).length > 0, { message: "lists no resources" });

export const migratedAppsSchema = z.array(z.string().min(1));

export type RoleDefinition = z.infer<typeof roleSchema>;
export type AccessEntry = z.infer<typeof accessEntry>;
export type PermissionVerb = z.infer<typeof permissionVerb>;
/** V1 permission catalogue: application -> resource -> verbs. */
export type PermissionCatalogue = Record<string, Record<string, PermissionVerb[]>>;

/** zod issue path -> `$.a[0].b`. */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}.${String(key)}`), "$");
}
