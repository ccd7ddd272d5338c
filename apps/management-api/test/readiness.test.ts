// Readiness tells whether the API can do its job: with the store gone it says 503, as the API does.
import { openTestStore } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, type ManagementApiServer } from "../src/index.js";
import { DATABASE_URL, testRoleConfiguration } from "./helpers.js";

let server: ManagementApiServer;
let base: string;
let closeStore: () => Promise<void>;

beforeAll(async () => {
  const store = await openTestStore({ name: "pg", databaseUrl: DATABASE_URL }, { domain: "redhat", workspaceDepthLimit: 5 });
  closeStore = () => store.close();
  server = buildServer({ port: 0, host: "127.0.0.1" }, { roleConfiguration: await testRoleConfiguration(), store });
  base = `http://127.0.0.1:${(await server.start()).port}`;
});
afterAll(() => server.stop());

describe("readiness", () => {
  it("is ready while the store answers, and not ready (with the metric saying why) once it does not", async () => {
    const up = await fetch(`${base}/readyz`);
    expect(up.status).toBe(200);
    await closeStore();
    // The probe result is cached for a second: wait for it to be asked again (bounded).
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      status = (await fetch(`${base}/readyz`)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(503);
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/gatehouse_management_store_up 0/);
    // Liveness is unaffected: the process is fine, only its dependency is not.
    expect((await fetch(`${base}/livez`)).status).toBe(200);
  });
});
