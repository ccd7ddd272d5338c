import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openStore } from "@gatehouse/store";
import { buildProgram } from "../src/program.js";

const examplePath = path.join(path.dirname(fileURLToPath(import.meta.url)), "../examples/v1-export.json");

async function run(args: string[]): Promise<string> {
  let out = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  await buildProgram().parseAsync(["node", "gatehouse", ...args]);
  vi.restoreAllMocks();
  return out;
}

describe("gatehouse migrate", () => {
  afterEach(() => vi.restoreAllMocks());

  it("dry run prints each v2 role with its binding level", async () => {
    const out = await run(["migrate", "--input", examplePath, "--dry-run"]);
    expect(out).toMatch(/Patch and repositories operator\s+custom\s+root/);
    expect(out).toMatch(/User Access principal viewer\s+system\s+tenant/);
  });

  it("imports into the store, and a second run changes nothing", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "migrate-"));
    const first = JSON.parse(await run(["migrate", "--input", examplePath, "--data-dir", dataDir, "--seed-system-roles", "--json"]));
    expect(first[0]).toMatchObject({ orgId: "11789772", rolesCreated: 1, groupsCreated: 2 });
    expect(first[0].revision).toBeGreaterThan(0);
    // One transaction (one revision, one change-feed entry) per tenant.
    const store = await openStore({ dataDir });
    try {
      const imports = (await store.feed.changesSince(0)).filter((c) => c.kind === "import_tenant");
      expect(imports.map((c) => [c.orgId, c.revision])).toEqual(first.map((r: { orgId: string; revision: number }) => [r.orgId, r.revision]));
      expect(await store.feed.headRevision()).toBe(first[first.length - 1].revision);
    } finally {
      await store.close();
    }
    const second = JSON.parse(await run(["migrate", "--input", examplePath, "--data-dir", dataDir, "--json"]));
    for (const r of second) {
      expect(r).toMatchObject({ rolesCreated: 0, rolesUpdated: 0, groupsCreated: 0 });
      expect(r.revision).toBeUndefined();
    }
  });

  it("is refused, naming the holder, while another store has the data directory open, and writes nothing", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "migrate-held-"));
    const holder = await openStore({ dataDir });
    try {
      const head = await holder.feed.headRevision();
      await expect(run(["migrate", "--input", examplePath, "--data-dir", dataDir, "--seed-system-roles", "--json"])).rejects.toThrow(
        new RegExp(`data directory .* is in use by this process \\(pid ${process.pid}\\) since \\d{4}-`),
      );
      expect(await holder.feed.headRevision()).toBe(head);
    } finally {
      await holder.close();
    }
  });
});
