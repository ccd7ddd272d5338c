// The long differential's SpiceDB process: a call past its deadline is killed, counted, and the next
// call runs on a fresh process holding the same schema and relationships.
import { afterAll, describe, expect, it } from "vitest";
import { parseRelationship } from "../src/index.js";
import { SpiceDbProcess } from "./support/spicedb-process.js";

const SCHEMA = ["definition user {}", "definition doc {", "  relation viewer: user", "  permission view = viewer", "}"].join("\n");

describe("SpiceDB in a child process", () => {
  // Ordinary calls get a hang bound, not a speed limit (a loaded machine is slow); only the stalled
  // call below meets a short deadline, and it blocks 200 times longer than that.
  const HANG_BOUND_MS = 300_000;
  const spicedb = new SpiceDbProcess(HANG_BOUND_MS);
  afterAll(() => spicedb.close());

  it("restarts with the loaded data after a call overruns its deadline", async () => {
    await spicedb.load(SCHEMA, [parseRelationship("doc:d#viewer@user:u")]);
    expect(await spicedb.check({ type: "doc", id: "d" }, "view", { type: "user", id: "u" })).toBe(true);
    spicedb.deadlineMs = 300;
    try {
      await expect(spicedb.stall(60_000)).rejects.toThrow(/deadline exceeded/);
    } finally {
      spicedb.deadlineMs = HANG_BOUND_MS;
    }
    expect(spicedb.restarts).toBe(1);
    expect(await spicedb.check({ type: "doc", id: "d" }, "view", { type: "user", id: "u" })).toBe(true);
    expect(await spicedb.lookupResources("doc", "view", { type: "user", id: "u" })).toEqual(["d"]);
  });

  it("reports SpiceDB's refusal of a schema", async () => {
    await expect(spicedb.load("definition doc { relation viewer: nobody }", [])).rejects.toThrow(/Failed to bootstrap/);
  });
});
