// Concurrent writers of different tenants and what followers rely on: every committed change
// delivered once, no gaps, an order consistent with commit order, and tokens meaning "at least
// this state". These tests drive the write path directly (runWrite) so a test can hold a write
// transaction open; they hold for any revision-numbering design (docs/SCALING.md). One store
// context per backend serves the file: each test writes its own tenants and counts revisions from
// the head it starts at.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeFeed } from "../src/feed.js";
import { testBackends, type TestBackend } from "../src/testing.js";
import type { Change, FollowHandle, Relationship } from "../src/types.js";
import { runWrite } from "../src/write.js";
import { openWriteContext } from "./support/write-context.js";
import type { StoreContext } from "../src/context.js";

const backends = await testBackends();

const openContext = (backend: TestBackend) => openWriteContext(backend);

const host = (org: string, n: number): Relationship => ({ resourceType: "hbi/host", resourceId: `${org}-h${n}`, relation: "t_workspace", subjectType: "rbac/workspace", subjectId: org });
const touch = (ctx: StoreContext, org: string, n: number) => runWrite(ctx, org, "test", (w) => w.touch([host(org, n)]));

function collect(ctx: StoreContext, from: number): { seen: Change[]; handle: FollowHandle } {
  const seen: Change[] = [];
  const handle = changeFeed(ctx, new Set()).follow(from, (changes) => void seen.push(...changes), { pollIntervalMs: 10 });
  return { seen, handle };
}

/** Waits for a condition, however long it takes (the suite's hang bound ends a test that never gets there). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every revision from..to exactly once, in order, and each change's content is its writer's. */
function expectContiguous(seen: Change[], from: number, to: number): void {
  expect(seen.map((c) => c.revision)).toEqual(Array.from({ length: to - from }, (_, i) => from + 1 + i));
}

describe.each(backends)("writers of different tenants on $name", (backend) => {
  let open: Awaited<ReturnType<typeof openContext>>;
  let ctx: StoreContext;
  beforeAll(async () => {
    open = await openContext(backend);
    ctx = open.ctx;
  });
  afterAll(async () => {
    await open?.close();
  });
  const head = () => changeFeed(ctx, new Set()).headRevision();

  it("16 tenants writing at once: no gaps, no duplicates, each tenant's writes in its commit order", async () => {
    const start = await head();
    const { seen, handle } = collect(ctx, start);
    const orgs = Array.from({ length: 16 }, (_, i) => `t${i}`);
    const perTenant = 8;
    const revisions = await Promise.all(
      orgs.map(async (org) => {
        const out: number[] = [];
        for (let n = 0; n < perTenant; n++) {
          const w = await touch(ctx, org, n);
          expect(ctx.tokens.decode(w.token)).toBe(w.revision);
          out.push(w.revision);
        }
        return out;
      }),
    );
    const total = orgs.length * perTenant;
    expect(await head()).toBe(start + total);
    await until(() => handle.revision === start + total);
    await handle.stop();
    expectContiguous(seen, start, start + total);
    // Each write's revision is the change holding its tuple; a tenant's later write has a later revision.
    const byRevision = new Map(seen.map((c) => [c.revision, c]));
    orgs.forEach((org, i) => {
      const revs = revisions[i]!;
      expect([...revs].sort((a, b) => a - b)).toEqual(revs);
      revs.forEach((r, n) => expect(byRevision.get(r)!.touched).toEqual([host(org, n)]));
    });
  });

  it("a long transaction that commits late is delivered once, after the writes that committed before it", async () => {
    const start = await head();
    const { seen, handle } = collect(ctx, start);
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const long = runWrite(ctx, "slow", "test", async (w) => {
      await w.touch([host("slow", 0)]);
      inside();
      await held;
    });
    await started;
    // On pg the others commit while the long one is open; PGlite has one connection, so they wait.
    const others = Promise.all(["a", "b", "c"].map(async (org) => [await touch(ctx, org, 0), await touch(ctx, org, 1)]));
    if (backend.name === "pg") {
      await others;
      await until(() => handle.revision === start + 6);
      expect(seen.every((c) => c.orgId !== "slow")).toBe(true);
    }
    finish();
    const { revision } = await long;
    await others;
    await until(() => handle.revision === start + 7);
    // Nothing is delivered twice, even after more passes.
    await touch(ctx, "a", 2);
    await until(() => handle.revision === start + 8);
    await handle.stop();
    expectContiguous(seen, start, start + 8);
    expect(seen.filter((c) => c.orgId === "slow").map((c) => c.revision)).toEqual([revision]);
    if (backend.name === "pg") expect(revision).toBe(start + 7);
  });

  it("a write that changes nothing takes no revision and returns the head", async () => {
    const start = await head();
    await touch(ctx, "same-a", 0);
    await touch(ctx, "same-b", 0);
    const again = await runWrite(ctx, "same-a", "test", async (w) => {
      w.markUnchanged(); // as an idempotent repeat does: no change, no new revision
      await w.touch([host("same-a", 0)]);
    });
    expect(again.revision).toBe(start + 2);
    expect((await changeFeed(ctx, new Set()).changesSince(start)).map((c) => c.orgId)).toEqual(["same-a", "same-b"]);
    const same = await runWrite(ctx, "same-a", "test", async (w) => w.markUnchanged());
    expect(same.revision).toBe(start + 2);
  });
});
