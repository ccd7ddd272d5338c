import type { RunningGatehouse } from "./all-in-one.js";
import type { StartConfig } from "./config.js";

/** base64 `x-rh-identity` of a demo user, as a gateway would send it. */
export function demoIdentityHeader(orgId: string, userId: string, isOrgAdmin: boolean): string {
  const identity = { identity: { org_id: orgId, type: "User", user: { user_id: userId, username: userId, is_org_admin: isOrgAdmin } } };
  return Buffer.from(JSON.stringify(identity)).toString("base64");
}

/** What started, where, and three calls a person can paste into a shell. */
export function startBanner(running: RunningGatehouse, config: StartConfig): string {
  const { http, grpc, cache, metrics } = running.ports;
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  const backend = config.databaseUrl ? `Postgres (${redact(config.databaseUrl)})` : config.dataDir ? `embedded PGlite (data in ${config.dataDir})` : "embedded PGlite (in memory)";
  const cacheBackend = config.redisUrl ? `Redis (${redact(config.redisUrl)})` : "in-process memory cache";
  const lines = [
    "",
    "Gatehouse is running",
    `  management API   http://${host}:${http}/api/rbac/v2/   (OpenAPI: /api/rbac/v2/openapi.json)`,
    `  console          http://${host}:${http}/console/   (access explorer, workspace tree, migration parity, playground)`,
    `  Kessel checks    http://${host}:${http}/api/kessel/v1beta2/   (inventory-api's HTTP/JSON checks at the same origin, for browsers)`,
    `  authz-engine     ${host}:${grpc}  gRPC kessel.inventory.v1beta2 (plaintext h2c, unauthenticated)`,
    `  workspace-cache  http://${host}:${cache}/api/rbac/v2/workspaces/?type=root   (with header x-rh-rbac-org-id: <org id>)`,
    `  engine HTTP      http://${host}:${metrics}/api/kessel/v1beta2/   (the same checks on the engine's own port; /metrics)`,
    `  store            ${backend}`,
    `  cache            ${cacheBackend}`,
  ];
  const demo = running.demo;
  if (demo) {
    const production = demo.workspaces["production"] ?? "<workspace-id>";
    const identity = demoIdentityHeader(demo.orgId, "alice", true);
    lines.push(
      "",
      `Demo organisation ${demo.orgId} (${demo.created ? "seeded now" : "already present"}): users alice (org admin), bob (viewer at Default Workspace), carol (patch operator on Production), dave (no access).`,
      "",
      "Try:",
      "  # 1. List workspaces over HTTP as alice",
      `  curl -s -H 'x-rh-identity: ${identity}' 'http://${host}:${http}/api/rbac/v2/workspaces/?limit=10'`,
      "",
      "  # 2. gRPC Check: may carol edit patch systems in Production? (Pattern 2 contingent permission)",
      `  pnpm gatehouse check --target ${host}:${grpc} --object rbac/workspace:${production} --relation patch_system_edit --subject carol`,
      `  grpcurl -plaintext -d '{"object":{"resource_type":"workspace","resource_id":"${production}","reporter":{"type":"rbac"}},"relation":"patch_system_edit","subject":{"resource":{"resource_type":"principal","resource_id":"${config.domain}/carol","reporter":{"type":"rbac"}}}}' ${host}:${grpc} kessel.inventory.v1beta2.KesselInventoryService/Check`,
      "",
      "  # 3. StreamedListObjects: where may bob disable advisor recommendations? (his group's legacy role is",
      "  #    bound at the Default Workspace: every workspace below it, not the Root Workspace; dave: none)",
      `  pnpm gatehouse list --target ${host}:${grpc} --type rbac/workspace --relation advisor_disable_recommendations_edit --subject bob`,
      `  grpcurl -plaintext -d '{"object_type":{"resource_type":"workspace","reporter_type":"rbac"},"relation":"advisor_disable_recommendations_edit","subject":{"resource":{"resource_type":"principal","resource_id":"${config.domain}/bob","reporter":{"type":"rbac"}}}}' ${host}:${grpc} kessel.inventory.v1beta2.KesselInventoryService/StreamedListObjects`,
      "",
      "  # 4. The workspace-cache: the organisation's root workspace, as the SDKs fetch it",
      `  curl -s -H 'x-rh-rbac-org-id: ${demo.orgId}' 'http://${host}:${cache}/api/rbac/v2/workspaces/?type=root'`,
      "",
      "  # 5. What a browser front end asks at the one origin (HTTP/JSON, as inventory-api serves it): may carol edit patch systems in Production?",
      `  curl -s -H 'x-rh-identity: ${demoIdentityHeader(demo.orgId, "carol", false)}' -H 'content-type: application/json' -d '{"object":{"resourceType":"workspace","resourceId":"${production}","reporter":{"type":"rbac"}},"relation":"patch_system_edit"}' http://${host}:${http}/api/kessel/v1beta2/checkself`,
    );
  }
  lines.push("", "Press Ctrl+C to stop.", "");
  return lines.join("\n");
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "<unparseable url>";
  }
}
