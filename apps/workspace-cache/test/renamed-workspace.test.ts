// A renamed default workspace is served under its new name once the cached entry expires: the
// cache keeps the immutable ids, but names may change, so entries are not kept forever.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltInWorkspaces, buildServer } from "@gatehouse/workspace-cache";

const at = "2026-01-01T00:00:00.000000Z";
const root = randomUUID();
const pair = (defaultName: string): BuiltInWorkspaces => ({
  root: { id: root, parent_id: null, type: "root", name: "Root Workspace", description: null, created: at, modified: at },
  default: { id: "d-1", parent_id: root, type: "default", name: defaultName, description: null, created: at, modified: at },
});
let current = pair("Default Workspace");
let base: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  const server = buildServer({ port: 0, host: "127.0.0.1", source: { directory: { builtInWorkspaces: async () => current } }, auth: { mode: "disabled" }, entryTtlMs: 200 });
  base = `http://127.0.0.1:${(await server.start()).port}`;
  stop = server.stop;
});
afterAll(() => stop());

const defaultName = async () => {
  const res = await fetch(`${base}/api/rbac/v2/workspaces/?type=default`, { headers: { "x-rh-rbac-org-id": "o-renamed" } });
  return ((await res.json()) as { data: Array<{ name: string }> }).data[0]!.name;
};

describe("renamed default workspace", () => {
  it("is served under its new name within the entry lifetime", async () => {
    expect(await defaultName()).toBe("Default Workspace");
    current = pair("Renamed Default");
    let name = "";
    for (let i = 0; i < 100 && name !== "Renamed Default"; i++) {
      name = await defaultName();
      if (name !== "Renamed Default") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(name).toBe("Renamed Default");
  });
});
