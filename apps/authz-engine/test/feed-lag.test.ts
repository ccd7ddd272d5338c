// The engine measures its own change-feed lag: every applied commit is observed (commit time by the
// database clock to "applied to the graph" by ours) in gatehouse_engine_feed_apply_lag_seconds, and
// the moment each revision was applied is kept, so a Check carrying the write's token is answered
// no earlier than that moment and sees the write.
import { Allowed } from "@gatehouse/proto";
import { openStore } from "@gatehouse/store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, principal, readGrant, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;

beforeAll(async () => {
  // Slow polling: the write reaches the engine through LISTEN/NOTIFY (or the token's bounded wait).
  engine = await startEngine({}, await openStore({ pollIntervalMs: 1000 }));
});

afterAll(async () => {
  await engine?.close();
  await engine?.store.close();
});

const lagSeries = async () => {
  const text = await (await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`)).text();
  const value = (suffix: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`gatehouse_engine_feed_apply_lag_seconds${suffix} `));
    return line === undefined ? undefined : Number(line.split(" ")[1]);
  };
  return { count: value("_count"), sum: value("_sum"), inf: value('_bucket{le="+Inf"}') };
};

it("records the apply lag of a write, and a Check with the write's token sees it", async () => {
  const tenant = (await engine.store.tenants.bootstrap("lag-org")).value;
  const before = await lagSeries();
  expect(before.count).toBeDefined(); // exposed (possibly 0) before any write of this test

  const written = await engine.store.relationships.write("lag-org", { touch: readGrant(tenant.defaultWorkspaceId, "lena") });
  const returned = performance.now();
  const answer = await call(engine.client, "check", {
    object: workspace(tenant.defaultWorkspaceId),
    relation: "view",
    subject: { resource: principal("lena") },
    consistency: { atLeastAsFresh: { token: written.token } },
  });
  const answered = performance.now();
  expect(answer.allowed).toBe(Allowed.ALLOWED_TRUE);
  expect(engine.store.tokens.decode(answer.consistencyToken!.token)).toBeGreaterThanOrEqual(written.revision);

  // The graph reached the revision before the answer went out.
  const appliedAt = engine.server.appliedAt(written.revision);
  expect(appliedAt).toBeDefined();
  expect(appliedAt!).toBeLessThanOrEqual(answered);
  expect(answered - returned).toBeGreaterThanOrEqual(0);
  expect(engine.server.appliedAt(written.revision + 1_000_000)).toBeUndefined();

  const after = await lagSeries();
  expect(after.count! - before.count!).toBeGreaterThanOrEqual(1); // bootstrap commits count too
  expect(after.inf).toBe(after.count);
  expect(after.sum! - before.sum!).toBeGreaterThanOrEqual(0);
});
