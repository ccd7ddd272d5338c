import { z } from "zod";
import { accessPaths } from "./openapi-access.js";
import { offsetPageSchema, problemSchema } from "./schemas/common.js";
import {
  groupBody,
  groupListQuery,
  groupListSchema,
  groupAllPrincipalsPageSchema,
  groupPrincipalsBody,
  groupPrincipalsDeleteQuery,
  groupPrincipalsListQuery,
  groupSchema,
  groupServiceAccountMembershipSchema,
  groupServiceAccountSchema,
} from "./schemas/groups.js";
import { principalListQuery, principalListSchema, principalSchema } from "./schemas/principals.js";
import {
  batchCreateBody,
  batchCreateResult,
  bySubjectListQuery,
  bySubjectListSchema,
  bySubjectPutBody,
  bySubjectPutQuery,
  bySubjectSchema,
  roleBindingListQuery,
  roleBindingListSchema,
} from "./schemas/role-bindings.js";
import { roleBatchDeleteBody, roleBody, roleFieldsQuery, roleListQuery, roleListSchema, roleSchema } from "./schemas/roles.js";
import {
  workspaceCreateBody,
  workspaceDetailQuery,
  workspaceDetailSchema,
  workspaceListQuery,
  workspaceListSchema,
  workspaceMoveBody,
  workspaceMoveResult,
  workspacePatchBody,
  workspaceQueryBody,
  workspaceQueryParams,
  workspaceSchema,
  workspaceUpdateBody,
} from "./schemas/workspaces.js";

type Json = Record<string, unknown>;

// The same zod schemas validate requests; the document is derived from them, never hand-written.
// Named schemas (`.meta({ id })`) end up in components.schemas and are referenced from operations.
const components: Record<string, Json> = {};

function hoist(json: Json): Json {
  const { $schema: _schema, $defs, ...rest } = json as Json & { $defs?: Record<string, Json> };
  const rewrite = (value: Json): Json => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  for (const [id, def] of Object.entries($defs ?? {})) components[id] ??= rewrite(def);
  return rewrite(rest);
}

const inputSchema = (schema: z.ZodType): Json => hoist(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json);
const outputSchema = (schema: z.ZodType): Json => hoist(z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json);

function queryParameters(schema: z.ZodObject): Json[] {
  const json = inputSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

const idParameter = (name = "id") => ({ name, in: "path", required: true, schema: { type: "string", format: "uuid" } });
const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: outputSchema(problemSchema) } } });
const errors = { "400": problem("Invalid request"), "401": { description: "Not authenticated" }, "403": problem("Not permitted"), "404": problem("Not found") };
const json = (schema: z.ZodType, description = "OK") => ({ description, content: { "application/json": { schema: outputSchema(schema) } } });
const body = (schema: z.ZodType) => ({ required: true, content: { "application/json": { schema: inputSchema(schema) } } });
const written = { "x-gatehouse-consistency-token": { description: "Consistency token of the write's revision", schema: { type: "string" } } };

interface Operation {
  operationId: string;
  tags: string[];
  parameters?: Json[];
  requestBody?: Json;
  responses: Json;
}

function op(operationId: string, tag: string, spec: Omit<Operation, "operationId" | "tags">): Operation {
  return { operationId, tags: [tag], ...spec, responses: { ...spec.responses, ...errors } };
}

const withHeaders = (response: Json): Json => ({ ...response, headers: written });

let cached: Json | null = null;

export function buildOpenApiDocument(): Json {
  if (cached) return cached;
  const v2 = "/api/rbac/v2";
  const v1 = "/api/rbac/v1";
  const paths: Record<string, Record<string, Operation>> = {
    [`${v2}/workspaces/`]: {
      get: op("Workspaces_list", "Workspaces", { parameters: queryParameters(workspaceListQuery), responses: { "200": json(workspaceListSchema) } }),
      post: op("Workspaces_create", "Workspaces", { requestBody: body(workspaceCreateBody), responses: { "201": withHeaders(json(workspaceSchema, "Created")) } }),
    },
    [`${v2}/workspaces/query/`]: {
      post: op("Workspaces_query", "Workspaces", { parameters: queryParameters(workspaceQueryParams), requestBody: body(workspaceQueryBody), responses: { "200": json(workspaceListSchema) } }),
    },
    [`${v2}/workspaces/{id}/`]: {
      get: op("Workspaces_read", "Workspaces", { parameters: [idParameter(), ...queryParameters(workspaceDetailQuery)], responses: { "200": json(workspaceDetailSchema) } }),
      put: op("Workspaces_update", "Workspaces", { parameters: [idParameter()], requestBody: body(workspaceUpdateBody), responses: { "200": withHeaders(json(workspaceSchema)) } }),
      patch: op("Workspaces_patch", "Workspaces", { parameters: [idParameter()], requestBody: body(workspacePatchBody), responses: { "200": withHeaders(json(workspaceSchema)) } }),
      delete: op("Workspaces_delete", "Workspaces", { parameters: [idParameter()], responses: { "204": withHeaders({ description: "Deleted" }) } }),
    },
    [`${v2}/workspaces/{id}/move/`]: {
      post: op("Workspaces_move", "Workspaces", { parameters: [idParameter()], requestBody: body(workspaceMoveBody), responses: { "200": withHeaders(json(workspaceMoveResult)) } }),
    },
    [`${v2}/roles/`]: {
      get: op("Roles_list", "Roles", { parameters: queryParameters(roleListQuery), responses: { "200": json(roleListSchema) } }),
      post: op("Roles_create", "Roles", { parameters: queryParameters(roleFieldsQuery), requestBody: body(roleBody), responses: { "201": withHeaders(json(roleSchema, "Created")) } }),
    },
    [`${v2}/roles/{id}/`]: {
      get: op("Roles_read", "Roles", { parameters: [idParameter(), ...queryParameters(roleFieldsQuery)], responses: { "200": json(roleSchema) } }),
      put: op("Roles_update", "Roles", { parameters: [idParameter(), ...queryParameters(roleFieldsQuery)], requestBody: body(roleBody), responses: { "200": withHeaders(json(roleSchema)) } }),
    },
    [`${v2}/roles:batchDelete/`]: {
      post: op("Roles_batchDelete", "Roles", { requestBody: body(roleBatchDeleteBody), responses: { "204": withHeaders({ description: "Deleted" }) } }),
    },
    [`${v2}/role-bindings/`]: {
      get: op("RoleBindings_list", "RoleBindings", { parameters: queryParameters(roleBindingListQuery), responses: { "200": json(roleBindingListSchema) } }),
    },
    [`${v2}/role-bindings:batchCreate/`]: {
      post: op("RoleBindings_batchCreate", "RoleBindings", { requestBody: body(batchCreateBody), responses: { "201": withHeaders(json(batchCreateResult, "Created")) } }),
    },
    [`${v2}/role-bindings/by-subject/`]: {
      get: op("RoleBindings_listBySubject", "RoleBindings", { parameters: queryParameters(bySubjectListQuery), responses: { "200": json(bySubjectListSchema) } }),
      put: op("RoleBindings_update", "RoleBindings", { parameters: queryParameters(bySubjectPutQuery), requestBody: body(bySubjectPutBody), responses: { "200": withHeaders(json(bySubjectSchema)) } }),
    },
    [`${v2}/principals/`]: {
      get: op("Principals_list", "Principals", { parameters: queryParameters(principalListQuery), responses: { "200": json(principalListSchema) } }),
    },
    [`${v2}/principals/{id}/`]: {
      get: op("Principals_read", "Principals", { parameters: [idParameter()], responses: { "200": json(principalSchema) } }),
    },
    [`${v1}/groups/`]: {
      get: op("Groups_list", "Groups (v1)", { parameters: queryParameters(groupListQuery), responses: { "200": json(groupListSchema) } }),
      post: op("Groups_create", "Groups (v1)", { requestBody: body(groupBody), responses: { "201": withHeaders(json(groupSchema, "Created")) } }),
    },
    [`${v1}/groups/{uuid}/`]: {
      get: op("Groups_read", "Groups (v1)", { parameters: [idParameter("uuid")], responses: { "200": json(groupSchema) } }),
      delete: op("Groups_delete", "Groups (v1)", { parameters: [idParameter("uuid")], responses: { "204": withHeaders({ description: "Deleted" }) } }),
    },
    [`${v1}/groups/{uuid}/principals/`]: {
      get: op("Groups_listPrincipals", "Groups (v1)", {
        parameters: [idParameter("uuid"), ...queryParameters(groupPrincipalsListQuery)],
        responses: {
          "200": json(
            z.union([
              offsetPageSchema(principalSchema, "GroupPrincipalList"),
              offsetPageSchema(groupServiceAccountSchema, "GroupServiceAccountList"),
              groupAllPrincipalsPageSchema(principalSchema),
              groupServiceAccountMembershipSchema,
            ]),
          ),
        },
      }),
      post: op("Groups_addPrincipals", "Groups (v1)", { parameters: [idParameter("uuid")], requestBody: body(groupPrincipalsBody), responses: { "200": withHeaders(json(groupSchema)) } }),
      delete: op("Groups_removePrincipals", "Groups (v1)", {
        parameters: [idParameter("uuid"), ...queryParameters(groupPrincipalsDeleteQuery)],
        responses: { "204": withHeaders({ description: "Removed" }) },
      }),
    },
    [`${v1}/principals/`]: {
      get: op("Principals_listV1", "Principals", { parameters: queryParameters(principalListQuery), responses: { "200": json(principalListSchema) } }),
    },
    ...(accessPaths(v2, { op, json, body }) as Record<string, Record<string, Operation>>),
  };
  cached = {
    openapi: "3.1.0",
    info: { title: "Gatehouse management API", version: "2.0.0", description: "insights-rbac compatible /api/rbac/v2 management interface." },
    components: {
      schemas: components,
      securitySchemes: {
        identity: { type: "apiKey", in: "header", name: "x-rh-identity" },
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
    },
    security: [{ identity: [] }, { bearer: [] }],
    paths,
  };
  return cached;
}
