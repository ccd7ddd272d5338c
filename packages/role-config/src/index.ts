// Public entry of @gatehouse/role-config: loads a configuration directory in the
// role-configuration repository's layout (Gatehouse's own per environment, or an operator's),
// validated, with the schema it builds and the identity of what was loaded.
export { loadRoleConfig, compileRoleModel, buildSchema, modelOf, environmentDir, ENVIRONMENTS, schemaZedFile } from "./load.js";
export type { Environment, LoadOptions } from "./load.js";
export { loadConfigDirectory, buildSchemaFromDirectory, packageRoot, CONFIG_LAYOUT } from "./directory.js";
export type { RoleConfig, ConfigIdentity } from "./directory.js";
export type { SchemaAst } from "@gatehouse/ksl";
export { RoleConfigError, formatIssue } from "./errors.js";
export type { RoleConfigErrorCode, RoleConfigIssue } from "./errors.js";
export { v1PermissionRelation, generateV1OnlyPermissions, V1_ONLY_PERMISSIONS_FILE } from "./v1-permissions.js";
export type { PermissionFile } from "./v1-permissions.js";
export { V1_VERBS, V1_PERMISSION } from "./schemas.js";
export type { RoleDefinition, AccessEntry, PermissionCatalogue, PermissionVerb, V1Verb } from "./schemas.js";
