// Public entry of @gatehouse/management-api.
export { buildServer, API_V1_PREFIX, API_V2_PREFIX, type BuildServerOptions, type HttpMount, type ManagementApiServer } from "./server.js";
export { configFromEnv, ConfigError, DEFAULT_CONFIG, managementSettings, type ManagementApiConfig } from "./config.js";
export { loadRoleConfiguration, type RoleConfiguration } from "./authz/role-config.js";
export { createPermissionCatalogue, type PermissionCatalogue, type PermissionScope } from "./authz/catalogue.js";
export { CONSISTENCY_TOKEN_HEADER } from "./http/respond.js";
export { buildOpenApiDocument } from "./openapi.js";
export { seededRolesOf, storeConfigImpact, storeImpactData, UnknownOrganisationError, type ImpactData } from "./authz/config-impact.js";
