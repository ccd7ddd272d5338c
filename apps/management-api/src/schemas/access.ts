import { z } from "zod";

const id = z.string().trim().min(1, "This field may not be blank.").max(256, "Ensure this field has no more than 256 characters.");

export const explainBody = z
  .strictObject({
    subject: z.strictObject({
      type: z.enum(["user", "group"], { error: "Must be 'user' or 'group'." }),
      id: id.meta({ description: "User id, or group UUID." }),
    }),
    permission: z
      .string()
      .trim()
      .min(1, "This field may not be blank.")
      .max(128, "Ensure this field has no more than 128 characters.")
      .meta({ description: "A v2 permission (`patch_system_edit`) or its v1 form (`patch:system:edit`)." }),
    resource: z
      .strictObject({
        type: z.enum(["tenant", "workspace", "host"], { error: "Must be 'tenant', 'workspace' or 'host'." }),
        id: id.optional().meta({ description: "Workspace UUID or host id; for a tenant `<domain>/<org_id>` or the org id, or omitted for the caller's own." }),
      })
      .superRefine((value, ctx) => {
        if (value.type !== "tenant" && value.id === undefined) ctx.addIssue({ code: "custom", message: "This field is required.", path: ["id"] });
      }),
  })
  .meta({ id: "AccessExplainRequest" });
export type ExplainBody = z.output<typeof explainBody>;

/** The caller's own access: the explain request without a subject. */
export const explainSelfBody = explainBody.omit({ subject: true }).meta({ id: "AccessExplainSelfRequest" });

const namedRef = z.object({ type: z.string(), id: z.string(), name: z.string().nullable() });
const levelEnum = z.enum(["tenant", "root", "default"]);
const explainNode: z.ZodType = z.lazy(() => z.object({ kind: z.string(), label: z.string(), allowed: z.boolean(), children: z.array(explainNode) }));

const explainFix = z.object({
  permission: z.string(),
  role: namedRef.nullable(),
  new_role: z.object({ name: z.string(), description: z.string(), permissions: z.array(z.string()) }).nullable(),
  subject: namedRef,
  resource: namedRef,
  preview: z.object({
    also_grants: z.array(z.string()),
    also_members: z.array(z.string()),
    also_members_total: z.number().int(),
    also_reaches: z.array(z.string()),
    also_reaches_total: z.number().int(),
  }),
  steps: z.array(z.object({ method: z.enum(["POST", "PUT"]), path: z.string(), body: z.unknown() })),
  undo_roles: z.array(z.string()),
});

export const explainResult = z
  .object({
    allowed: z.boolean(),
    revision: z.number().int(),
    consistency_token: z.string(),
    subject: namedRef,
    resource: namedRef,
    permission: z.object({
      name: z.string(),
      v1: z.array(z.string()),
      pattern: z.number().int().nullable(),
      pattern_name: z.string().nullable(),
      checked_at: levelEnum.nullable(),
      checked_at_label: z.string().nullable(),
    }),
    target_level: levelEnum.nullable(),
    grants: z.array(z.object({ grants: z.string(), binding_id: z.string(), role: namedRef, bound_at: namedRef, via_group: namedRef.nullable(), inherited_through: z.array(namedRef) })),
    summary: z.string(),
    evaluator_summary: z.string(),
    suggestions: z.array(z.object({ permission: z.string(), role: namedRef, resource: namedRef, subject: namedRef })),
    fixes: z.array(explainFix),
    tree: explainNode,
  })
  .meta({ id: "AccessExplanation" });

export const explainSelfResult = explainResult
  .pick({ allowed: true, revision: true, consistency_token: true, subject: true, resource: true, permission: true, grants: true, summary: true })
  .extend({ ask: z.array(z.string()) })
  .meta({ id: "AccessSelfExplanation" });

export const permissionListSchema = z
  .object({
    data: z.array(
      z.object({
        name: z.string(),
        v1: z.array(z.string()),
        pattern: z.number().int().nullable(),
        pattern_name: z.string().nullable(),
        checked_at: levelEnum.nullable(),
        granted: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: "AccessPermissionList" });

const row = z.record(z.string(), z.unknown());
export const parityResult = z
  .object({
    revision: z.number().int(),
    consistency_token: z.string(),
    v1_assignments: z.number().int(),
    truncated: z.boolean(),
    report: z.object({
      ok: z.boolean(),
      summary: z.record(z.string(), z.number().int()),
      lost: z.array(row),
      overGrants: z.array(row),
      extraGrants: z.array(row),
      unclassified: z.array(row),
      notInSchema: z.array(row),
    }),
  })
  .meta({ id: "AccessParityReport" });

/** The caller's organisation's mode (`GET /access:mode/`). */
export const orgModeSchema = z
  .object({
    org_id: z.string(),
    mode: z.enum(["v1", "v2"]),
    v2_activated_at: z.string().nullable().meta({ format: "date-time" }),
  })
  .meta({ id: "OrganisationMode" });
