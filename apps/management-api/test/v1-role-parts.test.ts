// A v1 role mixing workspace-limited and unlimited access is bound on its workspaces, and its
// unlimited permissions form a part bound at the organisation level (relationships only). The v2
// role-binding listings show that part as the role bound at the level with `permissions` (only
// those), so an administrator reading v2 bindings sees everything that grants access; a v2
// by-subject write there keeps it when the role is named and takes the group out of it otherwise.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

const V1 = "/api/rbac/v1";
let app: TestApp;
let orgSeq = 0;

interface ListCase {
  name: string;
  /** Query of GET /role-bindings/; `{default}`, `{root}`, `{tenant}`, `{edge}`, `{group}`, `{role}`, `{user}` are replaced. */
  query: string;
  /** Rows as `<resource>:<role>:<permissions joined by ,>` (`*` = the whole role), sorted. */
  rows: string[];
}
interface BySubjectCase {
  name: string;
  query: string;
  /** Per subject: the roles (`role` or `other`) and the sources. */
  rows: { roles: string[]; sources: string[] }[];
}
const cases = JSON.parse(readFileSync(new URL("./cases/v1-role-parts.json", import.meta.url), "utf8")) as {
  role: { name: string; access: unknown[] };
  list: ListCase[];
  bySubject: BySubjectCase[];
};

beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.stop());

async function setUp() {
  const name = `v1p${process.pid}x${++orgSeq}`;
  const admin = { org: name, user: `${name}-admin`, admin: true };
  const user = { org: name, user: `${name}-user` };
  for (const who of [admin, user]) await app.request("GET", `${V2}/workspaces/?type=default`, { as: who });
  const ws = async (type: string) => (await app.request("GET", `${V2}/workspaces/?type=${type}`, { as: admin })).body.data[0].id as string;
  const root = await ws("root");
  const def = await ws("default");
  const edge = (await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "edge", parent_id: def } })).body.id as string;
  const group = (await app.request("POST", `${V1}/groups/`, { as: admin, body: { name: "edge-ops" } })).body.uuid as string;
  await app.request("POST", `${V1}/groups/${group}/principals/`, { as: admin, body: { principals: [{ username: user.user }] } });
  const body = JSON.parse(JSON.stringify(cases.role).replaceAll("{edge}", edge));
  const role = (await app.request("POST", `${V1}/roles/`, { as: admin, body })).body.uuid as string;
  expect((await app.request("POST", `${V1}/groups/${group}/roles/`, { as: admin, body: { roles: [role] } })).status).toBe(200);
  const principal = (await app.request("GET", `${V1}/principals/?usernames=${user.user}`, { as: admin })).body.data[0];
  const names: Record<string, string> = { default: def, root, tenant: `redhat/${name}`, edge, group, role, user: user.user, principal: principal?.uuid ?? "" };
  const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(names[k] ?? `{${k}}`));
  const nameOf = new Map(Object.entries(names).map(([k, v]) => [v, k]));
  return { name, admin, user, names, fill, nameOf };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

async function listRows(s: Setup, query: string): Promise<string[]> {
  const res = await app.request("GET", `${V2}/role-bindings/?limit=1000&${s.fill(query)}`, { as: s.admin });
  expect(res.status, query).toBe(200);
  return (res.body.data as { role: { id: string }; sources: { id: string }[]; permissions?: string[] }[])
    .map((r) => `${s.nameOf.get(r.sources[0]!.id) ?? r.sources[0]!.id}:${s.nameOf.get(r.role.id) ?? "other"}:${r.permissions ? [...r.permissions].sort().join(",") : "*"}`)
    .sort();
}

describe("v2 role-binding listings show a v1 role's organisation-level part", () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp();
  });

  it.each(cases.list)("GET /role-bindings/: $name", async (c) => {
    expect(await listRows(s, c.query)).toEqual([...c.rows].sort());
  });

  it.each(cases.bySubject)("GET /role-bindings/by-subject/: $name", async (c) => {
    const res = await app.request("GET", `${V2}/role-bindings/by-subject/?limit=1000&${s.fill(c.query)}&fields=sources(id)`, { as: s.admin });
    expect(res.status).toBe(200);
    const rows = (res.body.data as { roles: { id: string }[]; sources: { id: string }[] }[]).map((r) => ({
      roles: r.roles.map((x) => s.nameOf.get(x.id) ?? "other").sort(),
      sources: r.sources.map((x) => s.nameOf.get(x.id) ?? x.id).sort(),
    }));
    expect(rows).toEqual(c.rows);
  });
});

describe("access:explain names a grant of a role's organisation-level part", () => {
  it("as the role bound at the level", async () => {
    const s = await setUp();
    const res = await app.request("POST", `${V2}/access:explain/`, {
      as: s.admin,
      body: { subject: { type: "user", id: s.user.user }, permission: "advisor:disable-recommendations:write", resource: { type: "workspace", id: s.names["root"] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.allowed).toBe(true);
    const grants = (res.body.grants as { role: { id: string }; bound_at: { id: string } }[]).map((g) => `${s.nameOf.get(g.role.id) ?? g.role.id}@${s.nameOf.get(g.bound_at.id) ?? g.bound_at.id}`);
    expect(grants).toContain("role@root");
  });
});

describe("v2 writes and v1 writes on a role's organisation-level part", () => {
  it("a by-subject PUT naming the role keeps the part as it is; leaving it out takes the group out of the part at that level only", async () => {
    const s = await setUp();
    const put = (resource: string, roles: string[]) =>
      app.request("PUT", `${V2}/role-bindings/by-subject/?${s.fill(resource)}&subject_type=group&subject_id=${s.names["group"]}`, { as: s.admin, body: { roles: roles.map((id) => ({ id })) } });
    const before = await listRows(s, "subject_type=group&subject_id={group}");
    // Named again: nothing changes (the part is never widened into the whole role).
    expect((await put("resource_type=workspace&resource_id={root}", [s.names["role"]!])).status).toBe(200);
    expect(await listRows(s, "subject_type=group&subject_id={group}")).toEqual(before);
    // Left out at the Root Workspace: only that part binding goes.
    expect((await put("resource_type=workspace&resource_id={root}", [])).status).toBe(200);
    const after = await listRows(s, "subject_type=group&subject_id={group}");
    expect(after).toEqual(before.filter((r) => !r.startsWith("root:")));
    expect(after.some((r) => r.startsWith("tenant:"))).toBe(true);
  });

  it("removing the role from the group in v1 removes the part from the listings", async () => {
    const s = await setUp();
    expect((await app.request("DELETE", `${V1}/groups/${s.names["group"]}/roles/?roles=${s.names["role"]}`, { as: s.admin })).status).toBe(204);
    expect(await listRows(s, "subject_type=group&subject_id={group}")).toEqual([]);
  });
});
