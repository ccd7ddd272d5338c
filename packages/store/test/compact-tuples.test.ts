// The change feed's tuples are read from the text Postgres prints for their jsonb arrays without
// JSON.parse (write.ts, parseCompactTuples); any other text goes through JSON.parse, with the same result.
import { describe, expect, it, vi } from "vitest";
import { expand, parseCompactTuples } from "../src/write.js";

type Compact = Parameters<typeof expand>[0];
const tuples: Compact[] = [
  ["hbi/host", "h-1", "t_workspace", "rbac/workspace", "w-1"],
  ["rbac/role_binding", "b/1|x=y+z_", "t_subject", "rbac/group", "g-1", "member"],
  ["rbac/role_binding", "b-2", "t_subject", "rbac/principal", "redhat/u1", "", 4_102_444_800_000],
  ["rbac/role_binding", "b-3", "t_subject", "rbac/group", "g-2", "member", 4_102_444_800_001],
  ["rbac/role", "r-1", "t_inventory_hosts_read", "rbac/principal", "*"],
];
/** As Postgres prints a jsonb array: `, ` between elements. */
const printed = (value: unknown): string => (Array.isArray(value) ? `[${value.map(printed).join(", ")}]` : JSON.stringify(value));

describe("parseCompactTuples", () => {
  it("reads Postgres's text of the tuples as JSON.parse and expand would, without JSON.parse", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(printed([])).toBe("[]");
      expect(parseCompactTuples("[]")).toEqual([]);
      for (let n = 1; n <= tuples.length; n++) {
        const some = tuples.slice(0, n);
        expect(parseCompactTuples(printed(some))).toEqual(some.map(expand));
      }
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it("falls back to JSON.parse for escapes and any other spacing, and refuses what is not JSON", () => {
    const odd: Compact[] = [
      ["t", 'quote"d', "r", "s", "back\\slash"],
      ["t", "[x]", "r", "s", 'y, "z"'],
    ];
    expect(parseCompactTuples(printed(odd))).toEqual(odd.map(expand));
    expect(parseCompactTuples(JSON.stringify(tuples))).toEqual(tuples.map(expand));
    expect(parseCompactTuples(JSON.stringify(tuples, null, 2))).toEqual(tuples.map(expand));
    expect(parseCompactTuples(`[["a", "b", "c", "d", "e"] , ["a", "b", "c", "d", "f"]]`)).toEqual([expand(["a", "b", "c", "d", "e"]), expand(["a", "b", "c", "d", "f"])]);
    expect(() => parseCompactTuples(`[["a", "b", "c", "d"`)).toThrow(SyntaxError);
  });
});
