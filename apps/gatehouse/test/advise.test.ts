import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildProgram } from "../src/program.js";

async function run(args: string[]): Promise<string> {
  let out = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  await buildProgram().parseAsync(["node", "gatehouse", ...args]);
  return out;
}

describe("gatehouse advise", () => {
  afterEach(() => vi.restoreAllMocks());

  it("advises Pattern 2 for high-cardinality host assets", async () => {
    const out = await run(["advise", "--workspace-aware", "--count", "100000", "--share", "10%", "--asset", "--host-related"]);
    expect(out).toMatch(/^Pattern 2 \(Native workspace-level list\)/);
  });

  it("says when the decision order and the full tree disagree", async () => {
    const out = JSON.parse(await run(["advise", "--workspace-aware", "--count", "500", "--share", "0.3", "--host-related", "--json"]));
    expect(out.pattern).toBe(2);
    expect(out.fullTree.pattern).toBe(1);
    expect(out.disagreement).toContain("full tree gives Pattern 1");
  });

  it("rejects facts it cannot decide on", async () => {
    await expect(run(["advise", "--workspace-aware"])).rejects.toThrow(/needs expectedCount and accessibleShare/);
    await expect(run(["advise", "--share", "2"])).rejects.toThrow(/share between 0 and 1/);
  });

  it("is a usage error without any input (never a guess)", async () => {
    await expect(run(["advise"])).rejects.toMatchObject({ code: "invalid-options", message: expect.stringContaining("--asset-type") });
    await expect(run(["advise", "--json"])).rejects.toMatchObject({ code: "invalid-options" });
  });

  // The asset-type catalogue Gatehouse ships (what `parity` and `migrate` use by default).
  const shippedCatalogue = fileURLToPath(new URL("../../../packages/rbac/src/data/asset-types.json", import.meta.url));

  it("accepts the shipped asset-type catalogue with --facts: every asset type, or the one named", async () => {
    const all = JSON.parse(await run(["advise", "--facts", shippedCatalogue, "--json"]));
    expect(all["patch:system"].pattern).toBe(2);
    expect(all["advisor:weekly-report"].pattern).toBe(4);
    expect(Object.keys(all).length).toBeGreaterThan(20);
    const one = JSON.parse(await run(["advise", "--facts", shippedCatalogue, "--asset-type", "inventory:hosts", "--json"]));
    expect(one.pattern).toBe(2);
  });

  it("answers by asset-type name from the bundled catalogue, and names the known ones for an unknown name", async () => {
    expect(await run(["advise", "--asset-type", "patch:system"])).toMatch(/^patch:system: Pattern 2 \(Native workspace-level list\)/);
    await expect(run(["advise", "--asset-type", "patch:nope"])).rejects.toThrow(/unknown asset type 'patch:nope' \(known: patch:system/);
    await expect(run(["advise", "--asset-type", "patch:system", "--asset"])).rejects.toThrow(/not both/);
  });
});
