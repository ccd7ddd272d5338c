// insights-rbac's older v1 access, role and group view tests, transcribed as data in
// v1-cases/*.json (see its README) and replayed over real HTTP by ./suite.ts, beside
// the YAML cases. Each case imports its organisation (principals, roles with their v1 access lists,
// groups, bindings, default-group customisation) into an organisation of its own and then checks
// each request's status and the fields that matter; every answer is also validated against
// insights-rbac's v1 OpenAPI document. The public (seeded) roles a case names are seeded once per
// app: cases naming the same set share an app (`systemRolesKey`).
import { readdirSync, readFileSync } from "node:fs";
import { encodeIdentityHeader } from "@gatehouse/auth";
import type { ImportRoleRef, SystemRoleDefinition, TenantImportPlan, V1AccessEntry } from "@gatehouse/store";
import type { TestStore } from "@gatehouse/store/testing";
import { expect } from "vitest";
import { validateAgainstSpec } from "../openapi-validator.js";

interface CaseCaller {
  /** User id; a service account's client id (its principal is keyed by it). */
  user: string;
  /** Defaults to `user`. */
  username?: string;
  admin?: boolean;
  serviceAccount?: boolean;
}

export interface CaseRole {
  key: string;
  name: string;
  scope?: "tenant" | "root" | "default";
  access: V1AccessEntry[];
}

interface CaseStep {
  name: string;
  as: CaseCaller | string;
  /** GET unless given; a write step's `body` is sent as JSON. */
  method?: "GET" | "POST" | "DELETE";
  body?: unknown;
  /** name -> top-level field of the answer, used as `{saved:name}` by later steps. */
  save?: Record<string, string>;
  path: string;
  status: number;
  count?: number;
  limit?: number;
  offset?: number;
  /** The page's entries, in any order. */
  data?: unknown[];
  /** The page's entries in this order. */
  ordered?: unknown[];
  /** Entries that must be on the page. */
  contains?: unknown[];
  /** Permissions of the page's entries, in this order. */
  permissionOrder?: string[];
  /** Fields of the body (top level or of a detail record) that must be equal. */
  fields?: Record<string, unknown>;
  /** `list.field` -> that field of every entry of the body's `list`, in order (e.g. `roles.uuid`). */
  pluck?: Record<string, unknown[]>;
  /** Exact key set of the body (a detail record). */
  keys?: string[];
  /** Exact key set of every entry of the page. */
  itemKeys?: string[];
  /** Fields of the first entry of the page that must be equal. */
  firstFields?: Record<string, unknown>;
  /** Names of the page's entries, in any order. */
  names?: string[];
  /** Fields of the page's entry with this name. */
  entry?: { name: string; fields: Record<string, unknown> };
  /** Every `groups_in` group of every entry has one of these names. */
  groupsInWithin?: string[];
  /** Every entry lists at least one group in `groups_in`, each with name, uuid and description. */
  groupsInNonEmpty?: boolean;
  /** Why the expectation differs from upstream's, when it does. */
  note?: string;
  /** v1 error entries (detail, source) the body must list. */
  errors?: { detail: string; source?: string }[];
}

export interface V1CaseFile {
  upstream: string[];
  description: string;
  systemRoles?: (SystemRoleDefinition & { access: V1AccessEntry[] })[];
  principals: CaseCaller[];
  roles?: CaseRole[];
  groups?: { key: string; name: string; description?: string; members: string[]; roles: string[] }[];
  /** Replaces the platform-default group's roles (a customised "Default access" group). */
  defaultGroupRoles?: string[];
  workspaces?: { key: string; name: string; parent: string }[];
  workspaceBindings?: { role: string; group: string; workspace: string }[];
  steps: CaseStep[];
}

const CASE_DIR = new URL("./v1-cases/", import.meta.url);

export function loadV1CaseFiles(): { file: string; content: V1CaseFile }[] {
  return readdirSync(CASE_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, content: JSON.parse(readFileSync(new URL(file, CASE_DIR), "utf8")) as V1CaseFile }));
}

/** Cases naming the same public roles can share an app (its store holds those seeded roles). */
export const systemRolesKey = (c: V1CaseFile): string => JSON.stringify(c.systemRoles ?? []);

/** Seeds the case's public roles into a fresh store (once per app). */
export async function seedV1SystemRoles(store: TestStore, c: V1CaseFile): Promise<void> {
  await store.roles.seedSystemRoles((c.systemRoles ?? []).map((r) => ({ ...r, access: r.access.map((a) => ({ permission: a.permission })) })));
}

const roleRef = (roles: Map<string, CaseRole>, name: string): ImportRoleRef => (roles.has(name) ? { key: name } : { seeded: name });
const scopeOf = (role: CaseRole) => role.scope ?? "default";

/** Imports the case's organisation; returns the ids placeholders in paths and bodies refer to. */
async function arrange(store: TestStore, c: V1CaseFile, org: string): Promise<Record<string, string>> {
  // Workspaces first: role access lists may name them.
  const ids: Record<string, string> = {};
  const tenant = (await store.tenants.bootstrap(org)).value;
  ids["workspace:default"] = tenant.defaultWorkspaceId;
  ids["workspace:root"] = tenant.rootWorkspaceId;
  ids["group:default"] = tenant.platformDefaultGroupId;
  ids["group:admin"] = tenant.adminDefaultGroupId;
  for (const w of c.workspaces ?? []) {
    const created = await store.workspaces.create(org, { name: w.name, parentId: ids[`workspace:${w.parent}`]! });
    ids[`workspace:${w.key}`] = created.value.id;
  }
  const roles = new Map((c.roles ?? []).map((r) => [r.key, fill(r, ids)]));
  const seededScope = new Map((c.systemRoles ?? []).map((r) => [r.name, r.scope ?? "default"]));
  const level = (name: string) => (roles.has(name) ? scopeOf(roles.get(name)!) : (seededScope.get(name) ?? "default"));
  const plan: TenantImportPlan = {
    principals: c.principals.map((p) => ({
      userId: p.user,
      username: p.username ?? p.user,
      isOrgAdmin: p.admin === true,
      type: p.serviceAccount ? "service-account" : "user",
    })),
    roles: [...roles.values()].map((r) => ({ key: r.key, name: r.name, scope: scopeOf(r), permissions: [...new Set(r.access.map((a) => a.permission))], access: r.access })),
    groups: (c.groups ?? []).map((g) => ({ key: g.key, name: g.name, members: g.members, ...(g.description !== undefined ? { description: g.description } : {}) })),
    bindings: (c.groups ?? []).flatMap((g) => g.roles.map((r) => ({ role: roleRef(roles, r), group: { key: g.key }, level: level(r) }))),
  };
  if (c.defaultGroupRoles) {
    const access: NonNullable<TenantImportPlan["defaultAccess"]> = { tenant: [], root: [], default: [] };
    for (const r of c.defaultGroupRoles) access[level(r)]!.push(roleRef(roles, r));
    plan.defaultAccess = access;
  }
  const { value } = await store.imports.applyTenant(org, plan);
  for (const [k, id] of Object.entries(value.roleIds)) ids[`role:${k}`] = id;
  for (const [k, id] of Object.entries(value.groupIds)) ids[`group:${k}`] = id;
  if (c.workspaceBindings?.length) {
    await store.roleBindings.batchCreate(
      org,
      c.workspaceBindings.map((b) => ({
        roleId: ids[`role:${b.role}`]!,
        resource: { type: "workspace", id: ids[`workspace:${b.workspace}`]! },
        subject: { type: "group", id: ids[`group:${b.group}`]! },
      })),
    );
  }
  for (const r of c.systemRoles ?? []) {
    const found = (await store.roles.list(org, { kinds: ["seeded"], name: r.name, limit: -1 })).data.find((x) => x.name === r.name);
    if (found) ids[`role:${r.name}`] = found.id;
  }
  return ids;
}

/** Replaces `{role:x}`, `{group:x}`, `{workspace:x}` in strings (deeply). */
function fill<T>(value: T, ids: Record<string, string>): T {
  if (typeof value === "string") return value.replace(/\{([a-z]+:[^}]+)\}/g, (m, k: string) => ids[k] ?? m) as T;
  if (Array.isArray(value)) return value.map((v) => fill(v, ids)) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, ids)])) as T;
  return value;
}

/** Deep equality with lists of resource-definition values compared as sets. */
const normal = (v: unknown): unknown => {
  if (Array.isArray(v))
    return v
      .map(normal)
      .map((x) => JSON.stringify(x))
      .sort()
      .map((x) => JSON.parse(x) as unknown);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, normal(x)]),
    );
  return v;
};

export async function runV1Case(store: TestStore, baseUrl: string, c: V1CaseFile, org: string): Promise<void> {
  const ids = await arrange(store, c, org);
  const callers = new Map(c.principals.map((p) => [p.user, p]));
  for (const step of c.steps) {
    const who = typeof step.as === "string" ? (callers.get(step.as) ?? { user: step.as }) : step.as;
    const header = encodeIdentityHeader(
      who.serviceAccount
        ? { orgId: org, serviceAccount: { clientId: who.user, username: who.username ?? who.user } }
        : { orgId: org, userId: who.user, username: who.username ?? who.user, isOrgAdmin: who.admin === true },
    );
    const method = step.method ?? "GET";
    const res = await fetch(baseUrl + fill(step.path, ids), {
      method,
      headers: { "x-rh-identity": header, ...(step.body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(step.body !== undefined ? { body: JSON.stringify(fill(step.body, ids)) } : {}),
    });
    const text = await res.text();
    validateAgainstSpec(method, step.path, res.status, res.headers.get("content-type"), text);
    const body = text ? (JSON.parse(text) as Record<string, any>) : null;
    const at = `${step.name}: ${res.status} ${text.slice(0, 400)}`;
    expect(res.status, at).toBe(step.status);
    for (const [name, field] of Object.entries(step.save ?? {})) ids[`saved:${name}`] = String(body?.[field]);
    if (step.count !== undefined) expect(body?.["meta"]?.count, at).toBe(step.count);
    if (step.limit !== undefined) expect(body?.["meta"]?.limit, at).toBe(step.limit);
    if (step.offset !== undefined) expect(body?.["meta"]?.offset, at).toBe(step.offset);
    if (step.data) expect(normal(body?.["data"]), at).toEqual(normal(fill(step.data, ids)));
    if (step.ordered) expect(body?.["data"], at).toEqual(fill(step.ordered, ids));
    if (step.contains) for (const e of fill(step.contains, ids)) expect(normal(body?.["data"]), at).toContainEqual(normal(e));
    if (step.permissionOrder)
      expect(
        ((body?.["data"] ?? []) as { permission: string }[]).map((e) => e.permission),
        at,
      ).toEqual(step.permissionOrder);
    if (step.fields) for (const [k, v] of Object.entries(fill(step.fields, ids))) expect(normal(body?.[k]), `${at} (${k})`).toEqual(normal(v));
    if (step.pluck) {
      for (const [at2, values] of Object.entries(fill(step.pluck, ids))) {
        const [list = "", field = ""] = at2.split(".");
        expect(
          (body?.[list] as Record<string, unknown>[] | undefined)?.map((e) => e[field]),
          `${at} (${at2})`,
        ).toEqual(values);
      }
    }
    if (step.keys) expect(Object.keys(body ?? {}).sort(), at).toEqual([...step.keys].sort());
    if (step.itemKeys) for (const item of body?.["data"] ?? []) expect(Object.keys(item).sort(), at).toEqual([...step.itemKeys].sort());
    if (step.firstFields) for (const [k, v] of Object.entries(fill(step.firstFields, ids))) expect(normal(body?.["data"]?.[0]?.[k]), `${at} (data[0].${k})`).toEqual(normal(v));
    if (step.names) expect(((body?.["data"] ?? []) as { name: string }[]).map((r) => r.name).sort(), at).toEqual([...step.names].sort());
    if (step.entry) {
      const found = (body?.["data"] as { name: string }[] | undefined)?.find((r) => r.name === step.entry!.name) as Record<string, unknown> | undefined;
      expect(found, `${at} (entry ${step.entry.name})`).toBeDefined();
      for (const [k, v] of Object.entries(fill(step.entry.fields, ids))) expect(normal(found?.[k]), `${at} (${step.entry.name}.${k})`).toEqual(normal(v));
    }
    if (step.groupsInWithin) {
      for (const r of body?.["data"] ?? []) for (const g of r.groups_in ?? []) expect(step.groupsInWithin, `${at} (${r.name})`).toContain(g.name);
    }
    if (step.groupsInNonEmpty) {
      for (const r of body?.["data"] ?? []) {
        expect(r.groups_in?.length, `${at} (${r.name}.groups_in)`).toBeGreaterThan(0);
        for (const g of r.groups_in) for (const k of ["name", "uuid", "description"]) expect(g[k] ?? null, `${at} (${r.name}: ${g.name}.${k})`).not.toBeNull();
      }
    }
    if (step.errors) {
      for (const e of step.errors) expect(body?.["errors"], at).toContainEqual(expect.objectContaining({ ...e, status: String(step.status) }));
    }
  }
}
