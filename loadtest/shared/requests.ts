// gRPC and HTTP request shapes, written once in proto field names (snake_case): k6's protojson
// and @grpc/proto-loader with keepCase both accept them, so both runtimes send identical messages.

export const INVENTORY_SERVICE = "kessel.inventory.v1beta2.KesselInventoryService";
export const HEALTH_SERVICE = "kessel.inventory.v1.KesselInventoryHealthService";
export const PROTO_FILES = ["kessel/inventory/v1beta2/inventory_service.proto", "kessel/inventory/v1/health.proto"];

export interface ResourceRef {
  resource_type: string;
  resource_id: string;
  reporter: { type: string };
}

export function principalSubject(domain: string, user: string): { resource: ResourceRef } {
  return { resource: { resource_type: "principal", resource_id: `${domain}/${user}`, reporter: { type: "rbac" } } };
}

export function hostRef(id: string): ResourceRef {
  return { resource_type: "host", resource_id: id, reporter: { type: "hbi" } };
}

export function checkRequest(host: string, relation: string, subject: { resource: ResourceRef }) {
  return { object: hostRef(host), relation, subject };
}

export function checkBulkRequest(hosts: string[], relation: string, subject: { resource: ResourceRef }) {
  return { items: hosts.map((h) => ({ object: hostRef(h), relation, subject })), consistency: { minimize_latency: true } };
}

export function listWorkspacesRequest(relation: string, subject: { resource: ResourceRef }, limit: number, continuationToken?: string) {
  return {
    object_type: { resource_type: "workspace", reporter_type: "rbac" },
    relation,
    subject,
    pagination: continuationToken ? { limit, continuation_token: continuationToken } : { limit },
  };
}

export function reportHostRequest(host: string, workspaceId: string) {
  return {
    type: "host",
    reporter_type: "hbi",
    reporter_instance_id: "loadtest",
    representations: {
      metadata: { local_resource_id: host, api_href: `https://inventory.example/api/inventory/v1/hosts/${host}` },
      common: { workspace_id: workspaceId },
    },
    write_visibility: "MINIMIZE_LATENCY",
  };
}

/**
 * A streamed item as either client decodes it: proto-loader (keepCase) gives proto names, k6's
 * protojson gives JSON (lowerCamel) names. The continuation token is on every item.
 */
export interface StreamedItem {
  object?: { resource_id?: string; resourceId?: string };
  pagination?: { continuation_token?: string; continuationToken?: string };
}

export function streamedId(item: StreamedItem): string | undefined {
  return item.object?.resource_id ?? item.object?.resourceId;
}

export function streamedToken(item: StreamedItem | undefined): string | undefined {
  return item?.pagination?.continuation_token ?? item?.pagination?.continuationToken;
}

/** `x-rh-identity` payload (trusted by a local stack); base64 encoding is runtime-specific. */
export function identityJson(org: string, user: string, isOrgAdmin: boolean): string {
  return JSON.stringify({ identity: { org_id: org, type: "User", user: { user_id: user, username: user, is_org_admin: isOrgAdmin } } });
}

/** Management-mix batchCreate body: re-binding an existing group/role/workspace is idempotent. */
export function batchCreateBody(bindings: { workspaceId: string; groupId: string; roleId: string }[]) {
  return {
    requests: bindings.map((b) => ({ resource: { id: b.workspaceId, type: "workspace" }, subject: { id: b.groupId, type: "group" }, role: { id: b.roleId } })),
  };
}
