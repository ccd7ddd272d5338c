// Public entry of @gatehouse/role-config: Gatehouse's own KSL schemas, roles and V1 permission
// catalogue per environment, validated, and the schema they build.
export { loadRoleConfig, compileRoleModel, buildSchema, ENVIRONMENTS, schemaZedFile, packageRoot } from "./load.js";
export type { RoleConfig, Environment, LoadOptions } from "./load.js";
export { RoleConfigError, formatIssue } from "./errors.js";
export type { RoleConfigErrorCode, RoleConfigIssue } from "./errors.js";
export { v1PermissionRelation } from "./v1-permissions.js";
export { V1_VERBS, V1_PERMISSION } from "./schemas.js";
export type { RoleDefinition, AccessEntry, PermissionCatalogue, PermissionVerb, V1Verb } from "./schemas.js";
