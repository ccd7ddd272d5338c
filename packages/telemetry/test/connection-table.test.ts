import { describe, expect, it } from "vitest";
import { ConnectionTable, peerOf, type TableEntry } from "../src/connection-table.js";

interface Entry extends TableEntry {
  name: string;
  inProgress: boolean;
}
const entry = (name: string, peer: string, inProgress = false): Entry => ({ name, peer, inProgress, busy: () => inProgress });

describe("ConnectionTable", () => {
  it("admits up to its cap without evicting", () => {
    const table = new ConnectionTable<Entry>(2);
    expect(table.admit(entry("a1", "a"))).toEqual({ admitted: true });
    expect(table.admit(entry("b1", "b"))).toEqual({ admitted: true });
    expect(table.size).toBe(2);
  });

  it("at the cap, a newcomer from a smaller source makes the largest source's oldest idle connection give way", () => {
    const table = new ConnectionTable<Entry>(4);
    const [a1, a2, a3, b1] = [entry("a1", "a", true), entry("a2", "a"), entry("a3", "a"), entry("b1", "b")];
    for (const e of [a1, a2, a3, b1]) table.admit(e);
    const c1 = entry("c1", "c");
    const admission = table.admit(c1);
    expect(admission).toEqual({ admitted: true, evicted: a2 });
    expect(table.heldBy("a")).toBe(2);
    expect(table.heldBy("c")).toBe(1);
  });

  it("takes the largest source's oldest busy connection when none of its connections is idle", () => {
    const table = new ConnectionTable<Entry>(2);
    const [a1, a2] = [entry("a1", "a", true), entry("a2", "a", true)];
    table.admit(a1);
    table.admit(a2);
    expect(table.admit(entry("b1", "b"))).toEqual({ admitted: true, evicted: a1 });
  });

  it("a newcomer from the largest source replaces its own oldest idle connection, or is refused when all are busy", () => {
    const table = new ConnectionTable<Entry>(3);
    const [a1, a2, b1] = [entry("a1", "a", true), entry("a2", "a"), entry("b1", "b")];
    for (const e of [a1, a2, b1]) table.admit(e);
    expect(table.admit(entry("a3", "a", true))).toEqual({ admitted: true, evicted: a2 });
    expect(table.admit(entry("a4", "a"))).toEqual({ admitted: false });
    expect(table.heldBy("b")).toBe(1);
  });

  it("a source level with the largest counts as the largest: it gives way only its own", () => {
    const table = new ConnectionTable<Entry>(2);
    const [a1, b1] = [entry("a1", "a"), entry("b1", "b")];
    table.admit(a1);
    table.admit(b1);
    expect(table.admit(entry("b2", "b"))).toEqual({ admitted: true, evicted: b1 });
  });

  it("tracks the largest source as connections close", () => {
    const table = new ConnectionTable<Entry>(3);
    const [a1, a2, b1] = [entry("a1", "a"), entry("a2", "a"), entry("b1", "b")];
    for (const e of [a1, a2, b1]) table.admit(e);
    table.remove(a1);
    table.remove(a2);
    table.remove(a2);
    expect(table.size).toBe(1);
    table.admit(entry("c1", "c"));
    table.admit(entry("c2", "c"));
    // c holds 2, b 1: a newcomer from b (smaller) makes c give way.
    expect(table.admit(entry("b2", "b"))).toMatchObject({ admitted: true, evicted: { name: "c1" } });
  });
});

describe("peerOf", () => {
  it.each([
    ["127.0.0.2", "127.0.0.2"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:0db8:0001:0002::9", "2001:db8:1:2::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
  ])("%s counts against %s", (address, peer) => {
    expect(peerOf(address)).toBe(peer);
  });
});
