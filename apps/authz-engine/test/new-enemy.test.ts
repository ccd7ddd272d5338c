// The "new enemy" sequence: once a revoke is committed, a check that carries the revoke's token
// must see it, however far behind the engine's change feed is. Other tenants write at the same
// time, so on Postgres revisions come from shared numbering passes, not only from the revoking write.
import { Allowed } from "@gatehouse/proto";
import type { Relationship } from "@gatehouse/store";
import { openTestStore, testBackends } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, principal, readGrant, startEngine, workspace, type RunningEngine } from "./helpers.js";

const backends = await testBackends();

describe.each(backends)("new enemy on $name", (backend) => {
  let engine: RunningEngine;

  beforeAll(async () => {
    // Slow change-feed polling: only the token's bounded wait can make the revoke visible in time.
    engine = await startEngine({}, await openTestStore(backend, { pollIntervalMs: 1000 }));
  });

  afterAll(async () => {
    await engine?.close();
    await engine?.store.close();
  });

  it("revoke, then check with the revoke's token, denies", async () => {
    const tenant = (await engine.store.tenants.bootstrap("enemy-org")).value;
    const others = ["other-1", "other-2", "other-3"];
    for (const org of others) await engine.store.tenants.bootstrap(org);
    let stop = false;
    const background = Promise.all(
      others.map(async (org) => {
        for (let n = 0; !stop; n++) {
          const host: Relationship = { resourceType: "hbi/host", resourceId: `${org}-${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: tenant.defaultWorkspaceId };
          await engine.store.relationships.write(org, { touch: [host] });
          // PGlite answers without leaving the microtask queue: let the engine's I/O run.
          await new Promise((r) => setImmediate(r));
        }
      }),
    );
    try {
      const grant = readGrant(tenant.defaultWorkspaceId, "mallory");
      const granted = await engine.store.relationships.write("enemy-org", { touch: grant });
      const checkAt = (token: string) =>
        call(engine.client, "check", {
          object: workspace(tenant.defaultWorkspaceId),
          relation: "view",
          subject: { resource: principal("mallory") },
          consistency: { atLeastAsFresh: { token } },
        });
      expect((await checkAt(granted.token)).allowed).toBe(Allowed.ALLOWED_TRUE);

      for (let round = 0; round < 5; round++) {
        const binding = grant.find((r) => r.relation === "t_subject")!;
        const revoked = await engine.store.relationships.write("enemy-org", { delete: [binding] });
        // Immediately after the commit: no sleep, no polling.
        const afterRevoke = await checkAt(revoked.token);
        expect(afterRevoke.allowed).toBe(Allowed.ALLOWED_FALSE);
        expect(engine.store.tokens.decode(afterRevoke.consistencyToken!.token)).toBeGreaterThanOrEqual(revoked.revision);
        const regranted = await engine.store.relationships.write("enemy-org", { touch: [binding] });
        expect((await checkAt(regranted.token)).allowed).toBe(Allowed.ALLOWED_TRUE);
      }
    } finally {
      stop = true;
      await background;
    }
  });
});
