// With the store gone the engine stays ready for checks it answers from memory, and says it is
// degraded in its metrics; writes fail as UNAVAILABLE rather than hanging.
import { openStore } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Allowed } from "@gatehouse/proto";
import { call, principal, readGrant, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;
let workspaceId: string;

beforeAll(async () => {
  const store = await openStore({ pollIntervalMs: 50 });
  workspaceId = (await store.tenants.bootstrap("degraded-org")).value.defaultWorkspaceId;
  const { revision } = await store.relationships.write("degraded-org", { touch: readGrant(workspaceId, "alice") });
  engine = await startEngine({}, store);
  await call(engine.client, "check", {
    object: workspace(workspaceId),
    relation: "view",
    subject: { resource: principal("alice") },
    consistency: { atLeastAsFresh: { token: store.tokens.encode(revision) } },
  });
});
afterAll(async () => {
  await engine?.close();
});

const scrape = async () => (await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`)).text();

describe("degraded state", () => {
  it("reports store_up 0 while staying ready for checks from memory", async () => {
    expect(await scrape()).toMatch(/gatehouse_engine_store_up 1/);
    await engine.store.close();
    let text = "";
    for (let i = 0; i < 100 && !/gatehouse_engine_store_up 0/.test(text); i++) {
      text = await scrape();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(text).toMatch(/gatehouse_engine_store_up 0/);
    expect((await fetch(`http://127.0.0.1:${engine.metricsPort}/readyz`)).status).toBe(200);
    const check = await call(engine.client, "check", { object: workspace(workspaceId), relation: "view", subject: { resource: principal("alice") } });
    expect(check.allowed).toBe(Allowed.ALLOWED_TRUE);
  });
});
