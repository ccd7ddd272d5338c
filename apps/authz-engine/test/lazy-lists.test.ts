// StreamedListObjects orders a large answer only as far as pages are read (the evaluator's
// lookupResourceIds; its own test reads every index and resume point): same order and cursors as a
// full sort, and the first item goes out before the rest is ordered.
import { type IdsInOrder, lookupResources, type Relationship } from "@gatehouse/evaluator";
import type { StreamedListObjectsResponse } from "@gatehouse/proto";
import { describe, expect, it } from "vitest";
import { encodeCursor, firstIndexAfter } from "../src/commands/cursor.js";
import { listHandlers } from "../src/handlers/lists.js";
import { childWorkspace, hostIn, readGrant } from "./helpers.js";
import { asResponse, hostsRequest as request, listContext as contextOf, random } from "./list-context.js";

/** Host id characters. */
const ID = "ab-Z09_";
function randomId(rand: () => number, prefix: string): string {
  const chars = [...ID];
  let s = prefix;
  const n = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) s += chars[Math.floor(rand() * chars.length)];
  return s;
}

describe("StreamedListObjects over a lazily ordered answer", () => {
  it("pages in the order and with the cursors of a full sort (random graphs, page sizes and resume points)", async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rand = random(1000 + seed);
      const workspaces = Array.from({ length: 1 + Math.floor(rand() * 5) }, (_, i) => `ws-${seed}-${i}`);
      const relationships: Relationship[] = [];
      // Nested workspaces, users granted on some of them, hosts (ids in random order) spread over them.
      for (let i = 1; i < workspaces.length; i++) relationships.push(childWorkspace(workspaces[i]!, workspaces[Math.floor(rand() * i)]!));
      const users = ["u0", "u1", "u2"];
      for (const user of users) for (const ws of workspaces) if (rand() < 0.4) relationships.push(...readGrant(ws, user));
      const hosts = new Set<string>();
      const count = 2000 + Math.floor(rand() * 4000); // at least the evaluator's size for a lazy answer
      while (hosts.size < count) hosts.add(randomId(rand, "host-"));
      for (const id of hosts) relationships.push(hostIn(id, workspaces[Math.floor(rand() * workspaces.length)]!));
      const ctx = await contextOf(relationships);
      const handlers = listHandlers(ctx);
      for (const user of users) {
        // The behaviour before: the whole sorted answer, pages cut by binary search after the cursor.
        const expected = lookupResources(ctx.graph.graph, "hbi/host", "view", { type: "rbac/principal", id: `redhat/${user}` });
        const walk = async (limit: number, token?: string) => {
          const items: StreamedListObjectsResponse[] = [];
          await handlers.streamedListObjects(request(user, limit, token), { identity: null, cancelled: () => false }, (m) => void items.push(asResponse(m)));
          return items;
        };
        // Random resume points: ids in the answer, ids not in it, and cursors of ids that never existed.
        for (let probe = 0; probe < 6; probe++) {
          const after = rand() < 0.5 && expected.length > 0 ? expected[Math.floor(rand() * expected.length)]! : randomId(rand, "host-");
          const limit = 1 + Math.floor(rand() * 1500);
          const start = firstIndexAfter(expected, after);
          const page = await walk(limit, encodeCursor(after));
          const want = expected.slice(start, start + limit);
          expect(
            page.map((item) => item.object!.resourceId),
            `seed ${seed}, ${user}, after ${after}`,
          ).toEqual(want);
          expect(page.map((item) => item.pagination!.continuationToken)).toEqual(want.map(encodeCursor));
        }
        // Walking every page from the start.
        const limit = 1 + Math.floor(rand() * 2500);
        const seen: string[] = [];
        let token: string | undefined;
        for (;;) {
          const page = await walk(limit, token);
          if (page.length === 0) break;
          seen.push(...page.map((item) => item.object!.resourceId));
          token = page.at(-1)!.pagination!.continuationToken;
        }
        expect(seen, `seed ${seed}, ${user}`).toEqual(expected);
      }
    }
  });

  it("sends the first item when only a small part of the answer is ordered, cold or warm", async () => {
    const HOSTS = 20_000;
    const rand = random(7);
    // Host ids interned in a shuffled order, so the walk finds them out of order.
    const ids = Array.from({ length: HOSTS }, (_, i) => `host-${String(i).padStart(6, "0")}`);
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    const ctx = await contextOf([...readGrant("ws-1", "dana"), ...ids.map((id) => hostIn(id, "ws-1"))]);
    // Instrumented: the answer the handler reads, so each write can see how much of it is ordered.
    let answer: IdsInOrder | undefined;
    const cache = ctx.lookupCache;
    const getOrCompute = cache.getOrCompute.bind(cache);
    cache.getOrCompute = (graph, revision, key, compute) => (answer = getOrCompute(graph, revision, key, compute));
    const sortedAtFirstWrite: number[] = [];
    const received: string[] = [];
    for (const run of ["cold", "warm"]) {
      received.length = 0;
      await listHandlers(ctx).streamedListObjects(request("dana", HOSTS), { identity: null, cancelled: () => false }, (m) => {
        if (received.length === 0) sortedAtFirstWrite.push(answer!.sorted);
        received.push(asResponse(m).object!.resourceId);
      });
      expect(received, run).toEqual([...ids].sort());
    }
    // Cold: the first item went out with fewer than one id in 100 in its place (a run of insertion sort);
    // the rest were ordered while the stream was being written. Warm: the cached answer is ordered.
    expect(sortedAtFirstWrite[0]).toBeGreaterThan(0);
    expect(sortedAtFirstWrite[0]).toBeLessThan(HOSTS / 100);
    expect(sortedAtFirstWrite[1]).toBe(HOSTS);
    expect(answer!.sorted).toBe(HOSTS);
  });
});
