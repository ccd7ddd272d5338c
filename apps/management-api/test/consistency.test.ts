import { encodeIdentityHeader } from "@gatehouse/auth";
import { openStore, type Store } from "@gatehouse/store";
import { openTestStore, type TestStore } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, CONSISTENCY_TOKEN_HEADER, type ManagementApiServer } from "../src/index.js";
import { DATABASE_URL, testRoleConfiguration, V2 } from "./helpers.js";

// Two instances over one database: writes through one become visible to the other through the
// change feed, including answers the other had cached.
let storeA: TestStore;
let storeB: Store;
let a: ManagementApiServer;
let b: ManagementApiServer;
let urlA: string;
let urlB: string;
const headers = { "x-rh-identity": encodeIdentityHeader({ orgId: "cons1", userId: "c-admin", isOrgAdmin: true }), "content-type": "application/json" };

beforeAll(async () => {
  storeA = await openTestStore({ name: "pg", databaseUrl: DATABASE_URL });
  storeB = await openStore({ databaseUrl: DATABASE_URL, schema: storeA.schema, pollIntervalMs: 200 });
  const roleConfiguration = await testRoleConfiguration();
  a = buildServer({ port: 0, host: "127.0.0.1" }, { store: storeA, roleConfiguration });
  b = buildServer({ port: 0, host: "127.0.0.1" }, { store: storeB, roleConfiguration });
  urlA = `http://127.0.0.1:${(await a.start()).port}`;
  urlB = `http://127.0.0.1:${(await b.start()).port}`;
});
afterAll(async () => {
  await a.stop();
  await b.stop();
  await storeB.close();
  await storeA.close();
});

const names = async (base: string) => {
  const res = await fetch(`${base}${V2}/workspaces/?type=standard&limit=-1`, { headers });
  return ((await res.json()) as { data: { name: string }[] }).data.map((w) => w.name);
};

describe("consistency across instances", () => {
  it("returns a decodable token for every write and refreshes the other instance's cached reads", async () => {
    expect(await names(urlB)).toEqual([]);
    const created = await fetch(`${urlA}${V2}/workspaces/`, { method: "POST", headers, body: JSON.stringify({ name: "Shared" }) });
    expect(created.status).toBe(201);
    const token = created.headers.get(CONSISTENCY_TOKEN_HEADER)!;
    expect(storeA.tokens.decode(token)).toBeGreaterThan(0);
    expect(await names(urlA)).toEqual(["Shared"]);

    let seen: string[] = [];
    for (let attempt = 0; attempt < 100 && seen.length === 0; attempt += 1) {
      seen = await names(urlB);
      if (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toEqual(["Shared"]);
  });
});
