// A unique violation the repositories' own checks did not catch (here: an organisation left with
// a root workspace but no tenant row, as two processes writing one embedded data directory once
// left it) is a 409 naming the key, not "Too many concurrent updates. Please retry." forever.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, startApp, V2, type TestApp } from "./helpers.js";

let app: TestApp;
beforeAll(async () => {
  app = await startApp({}, { backend: "pg" });
});
afterAll(() => app?.stop());

describe("a duplicate key", () => {
  it("is a 409 problem naming the key, and a retry gets the same answer", async () => {
    // The organisation's rows without its tenant row (foreign keys bypassed, as a second
    // process on the same files did).
    await app.store.tenants.bootstrap("half-written");
    const schema = (app.store as unknown as { schema: string }).schema;
    const client = new pg.Client({ connectionString: DATABASE_URL });
    client.on("error", () => undefined);
    await client.connect();
    try {
      await client.query("SET session_replication_role = replica");
      await client.query(`DELETE FROM "${schema}".gh_tenants WHERE org_id = 'half-written'`);
    } finally {
      await client.end();
    }
    const as = { org: "half-written", user: "admin", admin: true };
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await app.request("GET", `${V2}/workspaces/`, { as });
      expect(res.status).toBe(409);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body.detail).toBe("The organisation already has this built-in workspace (unique key gh_workspaces_one_builtin).");
      expect(res.text).not.toMatch(/retry/i);
    }
  });
});
