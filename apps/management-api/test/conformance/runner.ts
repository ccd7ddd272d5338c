import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { parse } from "yaml";
import { V2, type TestApp, type TestResponse } from "../helpers.js";

/**
 * insights-rbac's v2 view tests, transcribed as data (cases/*.yaml) and replayed over real HTTP.
 * Each case runs in an organisation of its own, built by the file's `setup`.
 */

export interface PrincipalSetup {
  name: string;
  username: string;
  user_id?: string;
  service_account?: string;
  admin?: boolean;
  /** The identity's `user.email`. */
  email?: string;
  /** A Red Hat associate (`user.is_internal`), with the names its identity carries. */
  internal?: boolean;
  first_name?: string;
  last_name?: string;
  /** At home in another organisation (`<case org>-<label>`), not the case's. */
  org?: string;
  /** Acting through its approved cross-account requests (`identity.internal.cross_access`); never recorded as a principal. */
  cross_access?: boolean;
}
/** A cross-account request as upstream's fixture writes it (through the store, as its ORM does). */
export interface CrossAccountSetup {
  name: string;
  /** `self` (the case's organisation) or the label of another (`<case org>-<label>`). */
  target: string;
  /** `{{org}}` may be used: user ids are global. */
  user_id: string;
  status?: "pending" | "approved" | "denied" | "cancelled" | "expired";
  /** Days from today (default 0). */
  start?: number;
  end: number;
  /** Seeded roles' display names. */
  roles?: string[];
  target_account?: string;
  /** The requester's e-mail and names (upstream's fixture has them from its user directory's mock). */
  email?: string;
  first_name?: string;
  last_name?: string;
}
export interface Setup {
  /** The ungrouped-hosts workspace (`{{ungrouped}}`), which upstream's inventory asks for over a service-to-service call. */
  ungrouped?: boolean;
  principals?: PrincipalSetup[];
  groups?: { name: string; group: string; members?: string[] }[];
  workspaces?: { name: string; workspace: string; parent?: string; description?: string }[];
  roles?: { name: string; role: string; permissions: string[]; description?: string }[];
  bindings?: { resource: string; resource_type?: string; subject: string; subject_type?: "group" | "user"; role: string }[];
  /** Other organisations to bootstrap (labels, `<case org>-<label>`). */
  orgs?: string[];
  cross_account_requests?: CrossAccountSetup[];
}
export interface Step {
  request: string;
  as?: string;
  /** Run in another organisation (`<case org>-<label>`), as its org admin: for cross-tenant cases. */
  org?: string;
  body?: unknown;
  status: number;
  expect?: unknown;
  save?: Record<string, string>;
}
export interface Case {
  test: string;
  note?: string;
  /** Settings upstream's test overrides; the case runs on an app started with them. */
  config?: Record<string, unknown>;
  setup?: Setup;
  steps: Step[];
}
export interface CaseFile {
  upstream: string;
  setup?: Setup;
  cases: Case[];
}

const CASES = new URL("./cases/", import.meta.url);

export function loadCaseFiles(): { file: string; content: CaseFile }[] {
  return readdirSync(CASES)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((file) => ({ file, content: parse(readFileSync(new URL(file, CASES), "utf8"), { merge: true }) as CaseFile }));
}

type Vars = Map<string, string>;

const DAY_MS = 86_400_000;
const two = (n: number) => String(n).padStart(2, "0");
/** `{{date+N}}` / `{{date-N}}`: today (UTC) N days on, as `MM/DD/YYYY` (upstream's `format_date`). */
function dateVariable(name: string): string | undefined {
  const match = /^date([+-]\d+)?$/.exec(name);
  if (!match) return undefined;
  const d = new Date(Date.now() + Number(match[1] ?? 0) * DAY_MS);
  return `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()}`;
}

/** `{{name}}`, or `{{name | upper}}` for its upper-case form; `{$uuids: n}` is n fresh random UUIDs. */
function substitute(value: unknown, vars: Vars): unknown {
  if (typeof value === "string") {
    return value.replace(/\{\{([^}|]+)(\|\s*upper\s*)?\}\}/g, (_, name: string, upper?: string) => {
      const found = vars.get(name.trim()) ?? dateVariable(name.trim());
      if (found === undefined) throw new Error(`unknown case variable {{${name}}}`);
      return upper ? found.toUpperCase() : found;
    });
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, vars));
  if (typeof value === "object" && value !== null && "$uuids" in value) {
    return Array.from({ length: Number((value as { $uuids: number }).$uuids) }, () => randomUUID());
  }
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  return value;
}

function at(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split(".")) node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/**
 * Subset match. Objects: every expected key matches (`"<absent>"`: key must be missing,
 * `"<any>"`: present); arrays: same length, element-wise; `{$length}`, `{$contains: [...]}`
 * (each matched by some element), `{$excludes: [...]}`, `{$sorted: "asc"|"desc", $by: key}` (numbers
 * compared as numbers),
 * `{$startsWith: text}`, `{$includes: text}` (a substring of a string), `{$text: text}` (a scalar
 * whose string form is text: compares with a saved variable), `{0: ..., 2: ...}` (an array's elements
 * at those indexes); scalars: equal.
 */
export function mismatch(actual: unknown, expected: unknown, path = "body"): string | null {
  if (expected === "<any>") return actual === undefined ? `${path} is missing` : null;
  if (typeof expected === "object" && expected !== null && !Array.isArray(expected)) {
    const spec = expected as Record<string, unknown>;
    if ("$length" in spec && (!Array.isArray(actual) || actual.length !== spec["$length"]))
      return `${path} length is ${Array.isArray(actual) ? actual.length : "not an array"}, expected ${String(spec["$length"])}`;
    if ("$contains" in spec) {
      for (const item of spec["$contains"] as unknown[]) {
        if (!Array.isArray(actual) || !actual.some((element) => mismatch(element, item) === null)) return `${path} has no element matching ${JSON.stringify(item)}`;
      }
    }
    if ("$excludes" in spec) {
      for (const item of spec["$excludes"] as unknown[]) {
        if (Array.isArray(actual) && actual.some((element) => mismatch(element, item) === null)) return `${path} has an element matching ${JSON.stringify(item)}`;
      }
    }
    if ("$sorted" in spec) {
      const values = Array.isArray(actual) ? actual.map((element) => at(element, String(spec["$by"]))) : [];
      // Numbers sort as numbers (upstream's `sequence`); anything else by its text.
      const numeric = values.length > 0 && values.every((v) => typeof v === "number");
      const keys: (number | string)[] = numeric ? (values as number[]) : values.map(String);
      const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (spec["$sorted"] === "desc") sorted.reverse();
      if (JSON.stringify(keys) !== JSON.stringify(sorted)) return `${path} is not sorted ${String(spec["$sorted"])} by ${String(spec["$by"])}: ${JSON.stringify(keys)}`;
    }
    if ("$startsWith" in spec)
      return typeof actual === "string" && actual.startsWith(String(spec["$startsWith"]))
        ? null
        : `${path} is ${JSON.stringify(actual)}, expected to start with ${JSON.stringify(spec["$startsWith"])}`;
    if ("$includes" in spec)
      return typeof actual === "string" && actual.includes(String(spec["$includes"])) ? null : `${path} is ${JSON.stringify(actual)}, expected to include ${JSON.stringify(spec["$includes"])}`;
    if ("$text" in spec)
      return actual !== undefined && actual !== null && typeof actual !== "object" && String(actual) === String(spec["$text"])
        ? null
        : `${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(spec["$text"])}`;
    if (Object.keys(spec).some((key) => key.startsWith("$"))) return null;
    // Keys that are all indexes pick elements of an array (`{ 0: {...} }`: the first, as upstream's `data[0]`).
    if (Array.isArray(actual) && Object.keys(spec).every((key) => /^\d+$/.test(key))) {
      for (const [key, inner] of Object.entries(spec)) {
        const problem = mismatch(actual[Number(key)], inner, `${path}.${key}`);
        if (problem) return problem;
      }
      return null;
    }
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return `${path} is ${JSON.stringify(actual)}, expected an object`;
    for (const [key, inner] of Object.entries(spec)) {
      const value = (actual as Record<string, unknown>)[key];
      if (inner === "<absent>") {
        if (key in (actual as object)) return `${path}.${key} should be absent`;
        continue;
      }
      const problem = mismatch(value, inner, `${path}.${key}`);
      if (problem) return problem;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path} is ${JSON.stringify(actual)?.slice(0, 300)}, expected ${expected.length} elements`;
    for (let i = 0; i < expected.length; i += 1) {
      const problem = mismatch(actual[i], expected[i], `${path}.${i}`);
      if (problem) return problem;
    }
    return null;
  }
  return actual === expected ? null : `${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
}

interface Identity {
  username: string;
  userId?: string;
  serviceAccount?: string;
  admin: boolean;
  email?: string;
  internal?: boolean;
  firstName?: string;
  lastName?: string;
  /** Label of the organisation it is at home in (`<case org>-<label>`). */
  org?: string;
  crossAccess?: boolean;
}

export class CaseRun {
  private readonly vars: Vars = new Map();
  private readonly identities = new Map<string, Identity>();

  constructor(
    private readonly app: TestApp,
    private readonly org: string,
  ) {
    this.vars.set("org", org);
    this.identities.set("admin", { username: "org-admin", userId: "org-admin-id", admin: true });
  }

  private headers(as: string | undefined, org?: string): Record<string, string> {
    if (as === "nobody") return {};
    const name = as ?? "admin";
    const who: Identity = this.identities.get(name) ?? { username: name, userId: `${name}-id`, admin: false };
    const home = org ?? who.org;
    return {
      "x-rh-identity": encodeIdentityHeader({
        orgId: home === undefined ? this.org : `${this.org}-${home}`,
        username: who.username,
        isOrgAdmin: who.admin,
        ...(who.email !== undefined ? { email: who.email } : {}),
        ...(who.internal ? { isInternal: true } : {}),
        ...(who.crossAccess ? { crossAccess: true } : {}),
        ...(who.firstName !== undefined ? { firstName: who.firstName } : {}),
        ...(who.lastName !== undefined ? { lastName: who.lastName } : {}),
        ...(who.serviceAccount ? { serviceAccount: { clientId: who.serviceAccount, username: who.username } } : { userId: who.userId ?? who.username }),
      }),
    };
  }

  async call(line: string, as: string | undefined, body: unknown, org?: string): Promise<TestResponse> {
    const [method, ...rest] = line.trim().split(/\s+/);
    const target = String(substitute(rest.join(" "), this.vars));
    // Absolute paths: another API version, or the operator endpoints (/admin/..., local callers).
    const path = target.startsWith("/api/") || target.startsWith("/admin/") ? target : `${V2}${target}`;
    const payload = body === undefined ? {} : { body: substitute(body, this.vars) };
    return this.app.request(method!, path, { as: null, headers: this.headers(as, org), ...payload });
  }

  private async must(line: string, body: unknown, status: number, as?: string): Promise<TestResponse> {
    const res = await this.call(line, as, body);
    if (res.status !== status) throw new Error(`setup ${line} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res;
  }

  async setup(setup: Setup | undefined): Promise<void> {
    const roots = await this.must("GET /workspaces/?type=root", undefined, 200);
    this.vars.set("root", roots.body.data[0].id);
    const defaults = await this.must("GET /workspaces/?type=default", undefined, 200);
    this.vars.set("default", defaults.body.data[0].id);
    this.vars.set("tenant", `redhat/${this.org}`);
    if (!setup) return;
    // Written first: the setup's API writes below bring the API's authorization graph past it.
    if (setup.ungrouped) this.vars.set("ungrouped", (await this.app.store.workspaces.ensureUngroupedHosts(this.org)).value.id);
    for (const label of setup.orgs ?? []) await this.call("GET /workspaces/?limit=1", "admin", undefined, label);
    for (const p of setup.principals ?? []) {
      this.identities.set(p.name, {
        username: p.username,
        admin: p.admin ?? false,
        ...(p.user_id ? { userId: String(substitute(p.user_id, this.vars)) } : {}),
        ...(p.service_account ? { serviceAccount: p.service_account } : {}),
        ...(p.email !== undefined ? { email: p.email } : {}),
        ...(p.internal ? { internal: true } : {}),
        ...(p.first_name !== undefined ? { firstName: p.first_name } : {}),
        ...(p.last_name !== undefined ? { lastName: p.last_name } : {}),
        ...(p.org !== undefined ? { org: p.org } : {}),
        ...(p.cross_access ? { crossAccess: true } : {}),
      });
      if (p.cross_access) continue;
      // Principals are recorded on their first authenticated request.
      await this.call("GET /principals/?limit=1", p.name, undefined);
      if (p.org !== undefined) continue;
      const listed = await this.must(`GET /principals/?username=${encodeURIComponent(p.username)}`, undefined, 200);
      const record = (listed.body.data as { uuid: string; username: string }[]).find((r) => r.username === p.username.toLowerCase());
      if (!record) throw new Error(`principal ${p.username} was not recorded`);
      this.vars.set(`${p.name}.uuid`, record.uuid);
      this.vars.set(`${p.name}.user_id`, this.identities.get(p.name)?.userId ?? p.service_account ?? "");
    }
    for (const g of setup.groups ?? []) {
      const group = await this.must("POST /api/rbac/v1/groups/", { name: g.group }, 201);
      this.vars.set(g.name, group.body.uuid);
      const members = (g.members ?? []).map((name) => ({ username: this.identities.get(name)?.username ?? name }));
      if (members.length > 0) await this.must(`POST /api/rbac/v1/groups/${group.body.uuid}/principals/`, { principals: members }, 200);
    }
    for (const w of setup.workspaces ?? []) {
      const body: Record<string, unknown> = { name: w.workspace, parent_id: this.vars.get(w.parent ?? "default") };
      if (w.description !== undefined) body["description"] = w.description;
      this.vars.set(w.name, (await this.must("POST /workspaces/", body, 201)).body.id);
    }
    for (const r of setup.roles ?? []) {
      const permissions = r.permissions.map((p) => {
        const [application, resource_type, operation] = p.split(":");
        return { application, resource_type, operation };
      });
      this.vars.set(r.name, (await this.must("POST /roles/", { name: r.role, permissions, ...(r.description !== undefined ? { description: r.description } : {}) }, 201)).body.id);
    }
    const requests = (setup.bindings ?? []).map((b) => ({
      resource: { id: `{{${b.resource}}}`, type: b.resource_type ?? "workspace" },
      subject: { id: b.subject_type === "user" ? `{{${b.subject}.uuid}}` : `{{${b.subject}}}`, type: b.subject_type ?? "group" },
      role: { id: `{{${b.role}}}` },
    }));
    if (requests.length > 0) await this.must("POST /role-bindings:batchCreate/", { requests }, 201);
    for (const car of setup.cross_account_requests ?? []) await this.crossAccountRequest(car);
  }

  /** Written as upstream's fixture writes it: created (pending), then given its status. */
  private async crossAccountRequest(car: CrossAccountSetup): Promise<void> {
    const store = this.app.store.crossAccount;
    const roles = await store.publicRolesByDisplayName(car.roles ?? []);
    const today = Date.now();
    const created = await store.create({
      targetOrg: car.target === "self" ? this.org : `${this.org}-${car.target}`,
      targetAccount: car.target_account ?? null,
      userId: String(substitute(car.user_id, this.vars)),
      requester: { username: null, email: car.email ?? null, firstName: car.first_name ?? null, lastName: car.last_name ?? null },
      startDate: new Date(today + (car.start ?? 0) * DAY_MS),
      endDate: new Date(today + car.end * DAY_MS),
      roleIds: (car.roles ?? []).map((name) => {
        const found = roles.find((r) => r.displayName === name && r.system);
        if (!found) throw new Error(`no seeded role ${name}`);
        return found.id;
      }),
    });
    this.vars.set(car.name, created.value.requestId);
    if (car.status && car.status !== "pending") await store.update(created.value.requestId, () => ({ status: car.status! }));
  }

  /** Runs the steps; returns the first difference from upstream's expectation, or null. */
  async steps(steps: Step[]): Promise<string | null> {
    for (const [i, step] of steps.entries()) {
      const res = await this.call(step.request, step.as, step.body, step.org);
      const where = `step ${i + 1} (${step.request})`;
      if (res.status !== step.status) return `${where}: status ${res.status}, expected ${step.status}; body ${res.text.slice(0, 400)}`;
      if (step.expect !== undefined) {
        const problem = mismatch(res.body, substitute(step.expect, this.vars));
        if (problem) return `${where}: ${problem}`;
      }
      for (const [name, path] of Object.entries(step.save ?? {})) this.vars.set(name, String(at(res.body, path)));
    }
    return null;
  }
}
