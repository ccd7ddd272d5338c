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
});
