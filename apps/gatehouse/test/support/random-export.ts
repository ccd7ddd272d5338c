import type { AssetTypeCatalog, V1Export, V1Role } from "@gatehouse/rbac";

/** Small deterministic PRNG (mulberry32) so a failing seed can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random v1 data over the catalog: wildcard roles, groups, default roles, custom default groups. */
export function randomExport(seed: number, catalog: AssetTypeCatalog): V1Export {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const concrete = catalog.permissions();
  const apps = [...new Set(concrete.map((p) => p.split(":")[0] as string))];
  const randomPermission = (): string => {
    const p = pick(concrete);
    const [app, resource, verb] = p.split(":") as [string, string, string];
    const r = rnd();
    if (r < 0.55) return p;
    if (r < 0.7) return `${app}:${resource}:*`;
    if (r < 0.85) return `${app}:*:${verb}`;
    return rnd() < 0.9 ? `${pick(apps)}:*:*` : "*:*:*";
  };
  const role = (name: string, extra: Partial<V1Role> = {}): V1Role => ({
    name,
    access: Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => ({ permission: randomPermission() })),
    ...extra,
  });
  const systemRoles = Array.from({ length: 6 }, (_, i) => role(`System role ${i}`, { system: true, platform_default: i < 2, admin_default: i === 2 || i === 3 }));
  const tenants = Array.from({ length: 3 }, (_, t) => {
    const orgId = `org${seed}x${t}`;
    const principals = Array.from({ length: 4 + Math.floor(rnd() * 4) }, (_, i) => ({ user_id: `u${t}-${i}`, is_org_admin: rnd() < 0.3 }));
    const roles = Array.from({ length: 3 }, (_, i) => role(`Custom ${t}-${i}`));
    const allRoles = [...roles.map((r) => r.name), ...systemRoles.map((r) => r.name)];
    const groups = Array.from({ length: 3 }, (_, g) => ({
      name: `Group ${t}-${g}`,
      principals: principals.filter(() => rnd() < 0.5).map((p) => p.user_id),
      roles: [pick(allRoles), pick(allRoles)].filter((r, i, xs) => xs.indexOf(r) === i),
    }));
    // Every other tenant customised its default access (a default group holding custom roles).
    if (t % 2 === 1) groups.push({ name: "Custom default access", principals: [], roles: [pick(allRoles)], platform_default: true } as never);
    return { org_id: orgId, principals, roles, groups };
  });
  return { version: 1, domain: "redhat", system_roles: systemRoles, tenants };
}
