// A renamed default workspace is served under its new name as soon as the change notification
// arrives (no TTL wait), including when a miss that read the old name stores it after the
// notification (here or in another replica sharing Redis), and end to end over the store's change feed.
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sharedRedisUrl } from "@gatehouse/cache/testing";
import { openTestStore } from "@gatehouse/store/testing";
import { type BuiltInWorkspaces, type CacheConfig, type WorkspaceDirectory, buildServer, workspaceDirectoryFromStore } from "@gatehouse/workspace-cache";

const at = "2026-01-01T00:00:00.000000Z";
const root = randomUUID();
const pair = (defaultName: string, revision: number): BuiltInWorkspaces => ({
  root: { id: root, parent_id: null, type: "root", name: "Root Workspace", description: null, created: at, modified: at },
  default: { id: "d-1", parent_id: root, type: "default", name: defaultName, description: null, created: at, modified: at },
  revision,
});

/** A directory whose answer, read gate and change notifications the test drives. */
function drivenDirectory() {
  const state = { current: pair("Default Workspace", 1), loads: 0, gate: undefined as Promise<void> | undefined };
  let notify: (orgId: string, revision: number) => void = () => {};
  const directory: WorkspaceDirectory = {
    async builtInWorkspaces() {
      state.loads++;
      const answer = state.current;
      await state.gate;
      return answer;
    },
    async watch(onChange) {
      notify = onChange;
      return { stop: async () => {} };
    },
  };
  return { directory, state, rename: (name: string, revision: number) => ((state.current = pair(name, revision)), notify("o-renamed", revision)) };
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

async function serve(directory: WorkspaceDirectory, cache: CacheConfig) {
  const server = buildServer({ port: 0, host: "127.0.0.1", source: { directory }, cache, auth: { mode: "disabled" } });
  const base = `http://127.0.0.1:${(await server.start()).port}`;
  stops.push(server.stop);
  return async (orgId = "o-renamed") => {
    const res = await fetch(`${base}/api/rbac/v2/workspaces/?type=default`, { headers: { "x-rh-rbac-org-id": orgId } });
    return { name: ((await res.json()) as { data: Array<{ name: string }> }).data[0]!.name, from: res.headers.get("x-gatehouse-cache") };
  };
}

const caches = async (): Promise<Array<[string, () => Promise<CacheConfig>]>> => [
  ["memory", async () => ({ kind: "memory" })],
  ["redis", async () => ({ kind: "redis", url: await sharedRedisUrl(), keyPrefix: `test:wsc-rename:${randomUUID()}:` })],
];

describe.each(await caches())("renamed default workspace over %s", (_kind, cacheConfig) => {
  it("is served under its new name on the first request after the change notification", async () => {
    const { directory, rename } = drivenDirectory();
    const defaultName = await serve(directory, await cacheConfig());
    expect(await defaultName()).toEqual({ name: "Default Workspace", from: "miss" });
    expect(await defaultName()).toEqual({ name: "Default Workspace", from: "hit" });
    rename("Renamed Default", 2);
    expect(await defaultName()).toEqual({ name: "Renamed Default", from: "miss" });
    expect(await defaultName()).toEqual({ name: "Renamed Default", from: "hit" });
  });

  it("refuses a pair read before the change even when it was stored after the notification", async () => {
    const { directory, state, rename } = drivenDirectory();
    const config = await cacheConfig();
    const defaultName = await serve(directory, config);
    let open!: () => void;
    state.gate = new Promise<void>((resolve) => (open = resolve));
    const slowMiss = defaultName(); // reads the old name (revision 1), held before it stores it
    await expect.poll(() => state.loads).toBe(1);
    rename("Renamed Default", 2);
    open();
    expect((await slowMiss).name).toBe("Default Workspace"); // answered before the rename was known
    state.gate = undefined;
    expect(await defaultName()).toEqual({ name: "Renamed Default", from: "miss" });
    expect(state.loads).toBe(2);
  });
});

describe("renamed default workspace through the store's change feed", () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const store of opened) await store.close();
  });

  it("is invalidated by the update_workspace change of its tenant only", async () => {
    const store = await openTestStore({ name: "pglite" });
    opened.push(store);
    const tenant = (await store.tenants.bootstrap("o-renamed")).value;
    await store.tenants.bootstrap("o-other");
    const real = workspaceDirectoryFromStore(store);
    const seen: Array<[string, number]> = [];
    const waiters: Array<{ orgId: string; revision: number; resolve(): void }> = [];
    // The real directory, with the test told of each notification (no sleeping for the feed).
    let following!: () => void;
    const followed = new Promise<void>((resolve) => (following = resolve));
    const directory: WorkspaceDirectory = {
      builtInWorkspaces: (orgId) => real.builtInWorkspaces(orgId),
      async watch(onChange) {
        const handle = await real.watch!((orgId, revision) => {
          onChange(orgId, revision);
          seen.push([orgId, revision]);
          for (const w of waiters.filter((w) => w.orgId === orgId && revision >= w.revision)) w.resolve();
        });
        following();
        return handle;
      },
    };
    const notified = (orgId: string, revision: number) => new Promise<void>((resolve) => waiters.push({ orgId, revision, resolve }));
    const defaultName = await serve(directory, { kind: "memory" });
    await followed;
    expect(await defaultName()).toEqual({ name: "Default Workspace", from: "miss" });
    expect(await defaultName("o-other")).toMatchObject({ from: "miss" });

    const renamed = await store.workspaces.update("o-renamed", tenant.defaultWorkspaceId, { name: "Renamed Default" });
    await notified("o-renamed", renamed.revision);
    expect(await defaultName()).toEqual({ name: "Renamed Default", from: "miss" });
    expect(await defaultName("o-other")).toMatchObject({ from: "hit" });
    expect(seen.every(([orgId]) => orgId === "o-renamed")).toBe(true);
  });
});
