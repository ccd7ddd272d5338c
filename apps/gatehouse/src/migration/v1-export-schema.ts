import { checkV1Export, RbacError, type V1Export } from "@gatehouse/rbac";
import { z } from "zod";
import { MigrationError } from "./errors.js";
import { readJsonFile } from "./json-file.js";

const nonEmpty = z.string().min(1);

const access = z.object({
  permission: nonEmpty,
  resourceDefinitions: z.array(z.unknown()).optional(),
});

const role = z.object({
  uuid: nonEmpty.optional(),
  name: nonEmpty,
  display_name: z.string().optional(),
  description: z.string().optional(),
  access: z.array(access),
  system: z.boolean().optional(),
  platform_default: z.boolean().optional(),
  admin_default: z.boolean().optional(),
});

const group = z.object({
  uuid: nonEmpty.optional(),
  name: nonEmpty,
  principals: z.array(nonEmpty).default([]),
  roles: z.array(nonEmpty).default([]),
  platform_default: z.boolean().optional(),
});

const principal = z.object({
  user_id: nonEmpty.regex(/^[A-Za-z0-9_\-.@|=+]+$/, "user ids may use letters, digits and _-.@|=+"),
  username: z.string().optional(),
  is_org_admin: z.boolean().optional(),
});

const tenant = z.object({
  org_id: nonEmpty.regex(/^[A-Za-z0-9_-]+$/, "org ids may use letters, digits, _ and -"),
  principals: z.array(principal),
  roles: z.array(role).optional(),
  groups: z.array(group).default([]),
});

/** Structure of the v1 export file (documented in apps/gatehouse/README.md). */
export const v1ExportSchema = z.object({
  version: z.literal(1),
  domain: nonEmpty.regex(/^[a-z0-9_-]+$/).optional(),
  system_roles: z.array(role.extend({ system: z.boolean().optional() })).default([]),
  tenants: z.array(tenant),
});

/** Validates a parsed v1 export: structure first, then the cross-references (all problems at once). */
export function validateV1Export(doc: unknown, source = "v1 export"): V1Export {
  const parsed = v1ExportSchema.safeParse(doc);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`);
    throw new MigrationError("invalid-export", `invalid ${source}:\n  ${lines.join("\n  ")}`);
  }
  const exp: V1Export = {
    ...parsed.data,
    system_roles: parsed.data.system_roles.map((r) => ({ ...r, system: true })),
  };
  try {
    return checkV1Export(exp);
  } catch (err) {
    if (err instanceof RbacError) throw new MigrationError("invalid-export", err.message.replace("v1 export", source));
    throw err;
  }
}

export async function loadV1Export(path: string): Promise<V1Export> {
  return validateV1Export(await readJsonFile(path, "v1 export"), `v1 export '${path}'`);
}
