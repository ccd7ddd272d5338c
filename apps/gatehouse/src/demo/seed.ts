import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Revision, RoleScope, Store } from "@gatehouse/store";

/** The demo organisation, as data (apps/gatehouse/demo/demo-org.json). */
export interface DemoOrg {
  orgId: string;
  principals: { userId: string; username: string; isOrgAdmin?: boolean }[];
  workspaces: { key: string; name: string; description?: string; parent: string }[];
  groups: { key: string; name: string; description?: string; members: string[] }[];
  /** Custom roles; `scope` is stored as given (the demo keeps one deliberately mis-levelled). */
  roles?: { name: string; description?: string; permissions: string[]; scope: RoleScope }[];
  bindings: { role: string; group: string; resource: string; why?: string }[];
  hosts: { id: string; name: string; workspace: string }[];
}

export interface SeedResult {
  orgId: string;
  /** Workspace ids by key, including the built-ins `root` and `default`. */
  workspaces: Record<string, string>;
  groups: Record<string, string>;
  created: boolean;
  revision: Revision;
}

export function loadDemoOrg(): DemoOrg {
  const file = fileURLToPath(new URL("../../demo/demo-org.json", import.meta.url));
  return JSON.parse(readFileSync(file, "utf8")) as DemoOrg;
}

/**
 * Seeds the demo organisation. Every step is idempotent (found by name first), so a second
 * start, or a start after an interrupted seed, converges on the same data without duplicates.
 */
export async function seedDemoOrg(store: Store, demo: DemoOrg = loadDemoOrg()): Promise<SeedResult> {
  const org = demo.orgId;
  const boot = await store.tenants.bootstrap(org);
  let revision = boot.revision;
  const tenant = boot.value;
  const workspaces: Record<string, string> = { root: tenant.rootWorkspaceId, default: tenant.defaultWorkspaceId };

  revision = (await store.principals.upsert(org, demo.principals)).revision;

  for (const ws of demo.workspaces) {
    const parentId = workspaces[ws.parent];
    if (!parentId) throw new Error(`demo workspace '${ws.key}' names unknown parent '${ws.parent}'`);
    const existing = await store.workspaces.list(org, { parentId, name: ws.name, limit: 1 });
    const found = existing.data.find((w) => w.name.toLowerCase() === ws.name.toLowerCase());
    if (found) {
      workspaces[ws.key] = found.id;
    } else {
      const created = await store.workspaces.create(org, { name: ws.name, description: ws.description ?? null, parentId });
      workspaces[ws.key] = created.value.id;
      revision = created.revision;
    }
  }

  const groups: Record<string, string> = {};
  for (const g of demo.groups) {
    const existing = (await store.groups.list(org, { name: g.name, limit: 10 })).data.find((x) => x.name === g.name);
    const groupId = existing?.id ?? (await store.groups.create(org, { name: g.name, description: g.description ?? null })).value.id;
    groups[g.key] = groupId;
    revision = (await store.groups.addMembers(org, groupId, g.members)).revision;
  }

  for (const role of demo.roles ?? []) {
    const existing = (await store.roles.list(org, { kinds: ["custom"], name: role.name, limit: 10 })).data.find((r) => r.name === role.name);
    if (!existing) revision = (await store.roles.create(org, { name: role.name, description: role.description ?? null, permissions: role.permissions, scope: role.scope })).revision;
  }

  const roles = await store.roles.list(org, { limit: 1000 });
  const roleId = (name: string): string => {
    const role = roles.data.find((r) => r.name === name || r.displayName === name);
    if (!role) throw new Error(`demo binding names unknown role '${name}' (is the role configuration seeded?)`);
    return role.id;
  };
  const grants = demo.bindings.map((b) => {
    const subjectId = groups[b.group];
    if (!subjectId) throw new Error(`demo binding names unknown group '${b.group}'`);
    const resource = b.resource === "tenant" ? { type: "tenant" as const, id: tenant.tenantId } : { type: "workspace" as const, id: workspaces[b.resource] ?? "" };
    if (!resource.id) throw new Error(`demo binding names unknown workspace '${b.resource}'`);
    return { resource, subject: { type: "group" as const, id: subjectId }, roleId: roleId(b.role) };
  });
  revision = (await store.roleBindings.batchCreate(org, grants)).revision;

  for (const h of demo.hosts) {
    const ws = workspaces[h.workspace];
    if (!ws) throw new Error(`demo host '${h.name}' names unknown workspace '${h.workspace}'`);
    revision = (await store.hosts.report(org, h.id, ws)).revision;
  }
  return { orgId: org, workspaces, groups, created: boot.created, revision };
}
