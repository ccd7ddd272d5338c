import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
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
    const second = JSON.parse(await run(["migrate", "--input", examplePath, "--data-dir", dataDir, "--json"]));
    for (const r of second) {
      expect(r).toMatchObject({ rolesCreated: 0, rolesUpdated: 0, groupsCreated: 0 });
      expect(r.revision).toBeUndefined();
    }
  }, 120_000);
});
