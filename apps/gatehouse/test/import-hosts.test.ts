// `gatehouse import-hosts`: users and hosts written in bulk (one revision per batch), a re-run
// places nothing again, and a malformed file or an unknown workspace is refused with nothing written.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "@gatehouse/store";
import { buildProgram } from "../src/program.js";
import { captureOutput } from "./support/capture-output.js";

const output = captureOutput();
async function run(args: string[]): Promise<string> {
  output.out = "";
  await buildProgram().parseAsync(["node", "gatehouse", ...args]);
  return output.out;
}

describe("gatehouse import-hosts", () => {
  it("records the users, places every host in batches, and a second run places nothing again", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "import-hosts-"));
    const dataDir = path.join(dir, "store");
    const setup = await openStore({ dataDir });
    const tenant = (await setup.tenants.bootstrap("77001")).value;
    const child = (await setup.workspaces.create("77001", { name: "child", parentId: tenant.defaultWorkspaceId })).value.id;
    const head = await setup.feed.headRevision();
    await setup.close();
    const hosts = path.join(dir, "hosts.csv");
    writeFileSync(hosts, `host_id,workspace_id\n${Array.from({ length: 5 }, (_, i) => `h-${i},${i < 3 ? child : tenant.defaultWorkspaceId}`).join("\n")}\n`);
    const users = path.join(dir, "users.csv");
    writeFileSync(users, "user_id,username\nu-1,Alice\nu-2,bob\n");
    const args = ["import-hosts", "--org-id", "77001", "--input", hosts, "--principals", users, "--batch", "2", "--data-dir", dataDir, "--json"];

    const first = JSON.parse(await run(args));
    // Users in one transaction, hosts in three (2 + 2 + 1).
    expect(first).toMatchObject({ principals: 2, created: 5, moved: 0, unchanged: 0, revision: head + 4 });
    const store = await openStore({ dataDir });
    try {
      expect((await store.hosts.list("77001", { workspaceId: child })).count).toBe(3);
      expect((await store.principals.get("77001", "u-1")).username).toBe("alice");
    } finally {
      await store.close();
    }
    // The users' upsert takes a revision again (as the principals API does); the hosts write none.
    expect(JSON.parse(await run(args))).toMatchObject({ created: 0, unchanged: 5, revision: head + 5 });
  });

  it("refuses a malformed line and an unknown workspace, writing nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "import-hosts-bad-"));
    const dataDir = path.join(dir, "store");
    const setup = await openStore({ dataDir });
    const tenant = (await setup.tenants.bootstrap("77002")).value;
    const head = await setup.feed.headRevision();
    await setup.close();
    const bad = path.join(dir, "bad.csv");
    writeFileSync(bad, `h-1,${tenant.defaultWorkspaceId}\nh-2\n`);
    await expect(run(["import-hosts", "--org-id", "77002", "--input", bad, "--data-dir", dataDir])).rejects.toThrow(/bad\.csv:2: expected "host_id,workspace_id"/);
    const unknown = path.join(dir, "unknown.csv");
    writeFileSync(unknown, `h-1,${tenant.defaultWorkspaceId}\nh-2,00000000-0000-4000-8000-00000000beef\n`);
    await expect(run(["import-hosts", "--org-id", "77002", "--input", unknown, "--data-dir", dataDir])).rejects.toThrow(/00000000-0000-4000-8000-00000000beef' does not exist/);
    const store = await openStore({ dataDir });
    try {
      expect(await store.feed.headRevision()).toBe(head);
      expect((await store.hosts.list("77002")).count).toBe(0);
    } finally {
      await store.close();
    }
  });
});
