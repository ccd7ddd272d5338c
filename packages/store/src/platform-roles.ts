// The six public "default parent" roles (insights-rbac's platform roles): one per audience
// (every principal / org admins) and level (tenant, root workspace, default workspace). Their
// children are the seeded roles flagged platform_default / admin_default whose scope is that
// level, so each default role is granted exactly at the level it needs. Ids are fixed forever.
import type { RoleScope } from "./types.js";

export type DefaultAudience = "user" | "admin";

export interface PlatformRoleDefinition {
  id: string;
  audience: DefaultAudience;
  scope: RoleScope;
  name: string;
  description: string;
}

const levelName: Record<RoleScope, string> = { tenant: "organization", root: "root workspace", default: "default workspace" };

function def(id: string, audience: DefaultAudience, scope: RoleScope): PlatformRoleDefinition {
  const who = audience === "user" ? "Default access" : "Default admin access";
  return {
    id,
    audience,
    scope,
    name: `${who} (${levelName[scope]})`,
    description: `${who} roles that are granted at the ${levelName[scope]} level`,
  };
}

export const PLATFORM_ROLES: readonly PlatformRoleDefinition[] = [
  def("0c6bd366-5ed2-452c-b66d-a69db75d302f", "user", "tenant"),
  def("28f187af-3f21-46c3-aac8-9e395b86bf9a", "user", "root"),
  def("0ca85697-ac9c-43d0-bee7-013825c520e5", "user", "default"),
  def("dd9fa23e-b3dc-422e-9d90-9bcab94d3661", "admin", "tenant"),
  def("ea2ddf74-e4ba-476c-bb2e-8b0fef3308a8", "admin", "root"),
  def("f5ceab90-e677-4f18-b7e0-50daec3f27c5", "admin", "default"),
];

export function platformRoleFor(audience: DefaultAudience, scope: RoleScope): PlatformRoleDefinition {
  const found = PLATFORM_ROLES.find((r) => r.audience === audience && r.scope === scope);
  if (!found) throw new Error(`no platform role for ${audience}/${scope}`);
  return found;
}
