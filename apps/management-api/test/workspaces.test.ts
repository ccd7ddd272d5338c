import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
const admin = { org: "ws1", user: "ws-admin", admin: true };

beforeAll(async () => {
  // Embedded PGlite here; the other suites run on real Postgres.
  app = await startApp({}, { backend: "pglite" });
});
afterAll(() => app.stop());

async function builtins() {
  const root = await app.request("GET", `${V2}/workspaces/?type=root`, { as: admin });
  const def = await app.request("GET", `${V2}/workspaces/?type=default`, { as: admin });
  return { root: root.body.data[0], def: def.body.data[0] };
}

describe("workspaces", () => {
  it("bootstraps the tenant on first request with root and default", async () => {
    const { root, def } = await builtins();
    expect(root).toMatchObject({ type: "root", parent_id: null });
    expect(def).toMatchObject({ type: "default", parent_id: root.id });
  });

  it("creates, reads with ancestry, renames, patches and deletes a workspace", async () => {
    const { root, def } = await builtins();
    const created = await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Team A", description: "first" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-gatehouse-consistency-token")).toMatch(/^GH1\./);
    expect(created.body).toMatchObject({ name: "Team A", type: "standard", parent_id: def.id, description: "first" });
    const id = created.body.id as string;

    const read = await app.request("GET", `${V2}/workspaces/${id}/?include_ancestry=true`, { as: admin });
    expect(read.status).toBe(200);
    expect(new Set(read.body.ancestry.map((a: { id: string }) => a.id))).toEqual(new Set([def.id, root.id]));

    const put = await app.request("PUT", `${V2}/workspaces/${id}/`, { as: admin, body: { name: "Team B", parent_id: def.id } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: "Team B", description: "first" });

    const patch = await app.request("PATCH", `${V2}/workspaces/${id}/`, { as: admin, body: { description: null } });
    expect(patch.body).toMatchObject({ name: "Team B", description: null });

    const moved = await app.request("PATCH", `${V2}/workspaces/${id}/`, { as: admin, body: { parent_id: root.id } });
    expect(moved.status).toBe(400);
    expect(moved.body.detail).toBe("Can't update the 'parent_id' on a workspace directly");

    expect((await app.request("DELETE", `${V2}/workspaces/${id}/`, { as: admin })).status).toBe(204);
    expect((await app.request("GET", `${V2}/workspaces/${id}/`, { as: admin })).status).toBe(404);
  });

  it("rejects sibling names that differ only in case", async () => {
    expect((await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Dup" } })).status).toBe(201);
    const again = await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "dUP" } });
    expect(again.status).toBe(400);
    expect(again.body.detail).toBe("Can't create workspace with same name within same parent workspace");
  });

  it("keeps root, default and ungrouped immutable where the contract says so", async () => {
    const { root, def } = await builtins();
    const putRoot = await app.request("PUT", `${V2}/workspaces/${root.id}/`, { as: admin, body: { name: "x", parent_id: null } });
    expect(putRoot.status).toBe(400);
    expect(putRoot.body.detail).toBe("The root workspace cannot be updated.");
    expect((await app.request("DELETE", `${V2}/workspaces/${def.id}/`, { as: admin })).body.detail).toBe("Unable to delete default workspace");
    expect((await app.request("DELETE", `${V2}/workspaces/${root.id}/`, { as: admin })).status).toBe(400);
    const renameDefault = await app.request("PATCH", `${V2}/workspaces/${def.id}/`, { as: admin, body: { name: "My Default" } });
    expect(renameDefault.status).toBe(200);
    const moveDefault = await app.request("POST", `${V2}/workspaces/${def.id}/move/`, { as: admin, body: { parent_id: root.id } });
    expect(moveDefault.body.detail).toBe("Cannot move non-standard workspace.");
  });

  it("refuses children under root unless configured", async () => {
    const { root } = await builtins();
    const res = await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Peer", parent_id: root.id } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("Sub-workspaces may only be created under the default workspace.");
  });

  it("enforces the depth limit and the move rules", async () => {
    let parent: string | undefined;
    const chain: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: `Level ${i}`, ...(parent ? { parent_id: parent } : {}) } });
      expect(res.status).toBe(201);
      parent = res.body.id;
      chain.push(parent!);
    }
    const tooDeep = await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: "Too deep", parent_id: parent } });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.detail).toBe("Workspaces may only nest 5 levels deep.");

    const intoOwn = await app.request("POST", `${V2}/workspaces/${chain[0]}/move/`, { as: admin, body: { parent_id: chain[2] } });
    expect(intoOwn.body.detail).toBe("Cannot move workspace under one of its own descendants.");
    const self = await app.request("POST", `${V2}/workspaces/${chain[0]}/move/`, { as: admin, body: { parent_id: chain[0] } });
    expect(self.body.detail).toBe("The parent_id and id values must not be the same.");
    const missing = await app.request("POST", `${V2}/workspaces/${chain[0]}/move/`, { as: admin, body: {} });
    expect(missing.body.detail).toBe("The 'parent_id' field is required.");

    const { def } = await builtins();
    const ok = await app.request("POST", `${V2}/workspaces/${chain[3]}/move/`, { as: admin, body: { parent_id: def.id } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: chain[3], parent_id: def.id });
    const notEmpty = await app.request("DELETE", `${V2}/workspaces/${chain[0]}/`, { as: admin });
    expect(notEmpty.body.detail).toBe("Unable to delete due to workspace dependencies");
  });

  it("lists with filters, ordering and the offset envelope with relative links", async () => {
    for (const name of ["Alpha one", "alpha two", "Beta"]) await app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name } });
    const res = await app.request("GET", `${V2}/workspaces/?name=ALPHA&type=standard&limit=1&order_by=-name`, { as: admin });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ count: 2, limit: 1, offset: 0 });
    expect(res.body.data[0].name).toBe("alpha two");
    expect(res.body.links.first).toBe(`${V2}/workspaces/?name=ALPHA&type=standard&order_by=-name&limit=1&offset=0`);
    expect(res.body.links.next).toBe(`${V2}/workspaces/?name=ALPHA&type=standard&order_by=-name&limit=1&offset=1`);
    expect(res.body.links.previous).toBeNull();
    expect(res.body.links.last).toBe(`${V2}/workspaces/?name=ALPHA&type=standard&order_by=-name&limit=1&offset=1`);

    const glob = await app.request("GET", `${V2}/workspaces/?name=alpha*`, { as: admin });
    expect(glob.body.meta.count).toBe(2);
    const multi = await app.request("GET", `${V2}/workspaces/?type=root,default`, { as: admin });
    expect(multi.body.data.map((w: { type: string }) => w.type).sort()).toEqual(["default", "root"]);
    const all = await app.request("GET", `${V2}/workspaces/?limit=-1`, { as: admin });
    expect(all.body.data.length).toBe(all.body.meta.count);

    const ids = glob.body.data.map((w: { id: string }) => w.id);
    const byIds = await app.request("GET", `${V2}/workspaces/?ids=${ids.join(",").toUpperCase()}`, { as: admin });
    expect(byIds.body.data.map((w: { id: string }) => w.id).sort()).toEqual([...ids].sort());
    const query = await app.request("POST", `${V2}/workspaces/query/?limit=5`, { as: admin, body: { ids } });
    expect(query.status).toBe(200);
    expect(query.body.meta.count).toBe(2);
  });

  it("answers concurrent creates with 201 or a retryable 503, never a partial write", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => app.request("POST", `${V2}/workspaces/`, { as: admin, body: { name: `Parallel ${i}` } })));
    for (const res of results) {
      expect([201, 503]).toContain(res.status);
      if (res.status === 503) expect(res.headers.get("retry-after")).toBe("1");
    }
    const listed = await app.request("GET", `${V2}/workspaces/?name=Parallel&limit=-1`, { as: admin });
    expect(listed.body.meta.count).toBe(results.filter((r) => r.status === 201).length);
  });
});
