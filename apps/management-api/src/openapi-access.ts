import type { z } from "zod";
import { explainBody, explainResult, explainSelfBody, explainSelfResult, orgModeSchema, parityResult, permissionListSchema } from "./schemas/access.js";

type Json = Record<string, unknown>;

/** The document builders of openapi.ts, passed in so both files derive schemas the same way. */
export interface OpenApiHelpers {
  op(operationId: string, tag: string, spec: { parameters?: Json[]; requestBody?: Json; responses: Json }): unknown;
  json(schema: z.ZodType, description?: string): Json;
  body(schema: z.ZodType): Json;
}

/** The access explorer's operations (org admins and service accounts, except the caller's own explanation and the permission catalogue). */
export function accessPaths(v2: string, { op, json, body }: OpenApiHelpers): Record<string, Record<string, unknown>> {
  const tag = "Access";
  return {
    [`${v2}/access:explain/`]: {
      post: op("Access_explain", tag, {
        requestBody: body(explainBody),
        responses: { "200": json(explainResult, "Allowed or denied at the evaluated revision, with the granting bindings or the reason and a binding that would grant it") },
      }),
    },
    [`${v2}/access:explain-self/`]: {
      post: op("Access_explainSelf", tag, {
        requestBody: body(explainSelfBody),
        responses: { "200": json(explainSelfResult, "The caller's own access (any signed-in user): allowed or denied, the granting bindings or the reason, and what to ask an administrator for") },
      }),
    },
    [`${v2}/access:permissions/`]: {
      get: op("Access_permissions", tag, { responses: { "200": json(permissionListSchema, "Permissions of the active schema with their v1 forms and check level") } }),
    },
    [`${v2}/access:mode/`]: {
      get: op("Access_mode", tag, { responses: { "200": json(orgModeSchema, "The caller's organisation's v1 / v2 mode (any signed-in user)") } }),
    },
    [`${v2}/access:parity/`]: {
      get: op("Access_parity", tag, { responses: { "200": json(parityResult, "v1 grants of the organisation checked in v2 (as `gatehouse parity`)") } }),
    },
  };
}
