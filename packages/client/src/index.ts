// Public entry of @gatehouse/client: the Node SDK applications use to call Gatehouse.
export { createAuthzClient } from "./client.js";
export type { Access, AuthzClient, AuthzClientDeps, ConsistencyInput, ListedResource, ListInput, OrgCheck, ResourceCheck } from "./client.js";
export { loadClientConfig, validateClientConfig } from "./config.js";
export type { AuthzClientConfig } from "./config.js";
export { AuthzClientError, isAuthzClientError } from "./errors.js";
export type { AuthzClientErrorCode } from "./errors.js";
export { createTokenProvider } from "./oauth.js";
export type { AccessToken, TokenProvider, TokenProviderOptions } from "./oauth.js";
export { principalSubject, resourceRef, tenantRef, workspaceRef } from "./references.js";
export type { ResourceInput, SubjectInput } from "./references.js";
export { subjectFromIdentityHeader } from "./identity.js";
export { createGrpcTransport, retryServiceConfig } from "./transport.js";
export type { CheckOutcome, CheckTransport, GrpcTransportOptions } from "./transport.js";
export { workspaceFilter } from "./workspace-filter.js";
export type { WorkspaceFilter } from "./workspace-filter.js";
export { createWorkspaceResolver } from "./workspaces.js";
export type { BuiltInWorkspaceType, WorkspaceResolver, WorkspaceResolverOptions } from "./workspaces.js";
