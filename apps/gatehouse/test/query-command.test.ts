// `gatehouse check` / `gatehouse list` reject malformed references before any call is made.
import { describe, expect, it } from "vitest";
import { parseObject, QueryInputError } from "../src/commands/query.js";
import { buildProgram } from "../src/program.js";

describe("gatehouse check / list input", () => {
  it("parses <reporter>/<type>:<id> into a Kessel resource reference", () => {
    expect(parseObject("rbac/workspace:ws-1")).toEqual({ resourceType: "workspace", resourceId: "ws-1", reporter: { type: "rbac" } });
    expect(parseObject("hbi/host:a/b")).toEqual({ resourceType: "host", resourceId: "a/b", reporter: { type: "hbi" } });
  });

  it.each(["workspace:1", "rbac/workspace", "rbac/work-space:1", "rbac/:1", "rbac/workspace:"])("rejects '%s'", (text) => {
    expect(() => parseObject(text)).toThrow(QueryInputError);
  });

  it("fails the command with a clear message on a malformed object or type", async () => {
    // Port 1 is never reached: validation happens first.
    await expect(buildProgram().parseAsync(["node", "gatehouse", "check", "--target", "127.0.0.1:1", "--object", "workspace:1", "--relation", "view", "--subject", "alice"])).rejects.toThrow(
      /is not '<reporter>\/<type>:<id>'/,
    );
    await expect(buildProgram().parseAsync(["node", "gatehouse", "list", "--target", "127.0.0.1:1", "--type", "workspace", "--relation", "view", "--subject", "alice"])).rejects.toThrow(
      /is not '<reporter>\/<type>'/,
    );
  });
});
