import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSchema, parseSchema, SchemaError, type ExpressionAst } from "../src/index.js";
import { fixturesDir } from "./support/scenarios.js";

const invalid: Array<{ name: string; schema: string[]; code: string; line: number; column: number }> = JSON.parse(readFileSync(join(import.meta.dirname, "cases/invalid-schemas.json"), "utf8"));

/** Prints an expression with full parentheses, to make precedence visible. */
function show(e: ExpressionAst): string {
  switch (e.kind) {
    case "union":
      return `(${show(e.left)} + ${show(e.right)})`;
    case "intersection":
      return `(${show(e.left)} & ${show(e.right)})`;
    case "exclusion":
      return `(${show(e.left)} - ${show(e.right)})`;
    case "arrow":
      return `${e.tupleset}->${e.target}`;
    case "ref":
      return e.name;
    case "nil":
      return "nil";
  }
}

describe("rbac-config schemas", () => {
  for (const env of ["stage", "prod"]) {
    it(`parses and compiles ${env}/schema.zed`, () => {
      const text = readFileSync(join(fixturesDir, env, "schema.zed"), "utf8");
      const model = compileSchema(parseSchema(text, `${env}/schema.zed`));
      expect([...model.definitions.keys()].sort()).toEqual([
        "hbi/host",
        "kessel/lock",
        "kessel/lockversion",
        "rbac/group",
        "rbac/platform",
        "rbac/principal",
        "rbac/role",
        "rbac/role_binding",
        "rbac/tenant",
        "rbac/workspace",
      ]);
      // Stage has three config_manager_state_* role relations more than prod (zed contract, 2.4).
      expect(model.definitions.get("rbac/role")!.relations.size).toBe(env === "stage" ? 237 : 234);
      expect(model.isPermission("hbi/host", "tenant")).toBe(env === "stage");
      expect(
        model.definitions
          .get("rbac/workspace")!
          .relations.get("t_parent")!
          .allowed.map((a) => a.type),
      ).toEqual(["rbac/workspace", "rbac/tenant"]);
    });
  }
});

describe("zed precedence: + binds tightest, then &, then -", () => {
  const cases: Array<[string, string]> = [
    ["a + b & c", "((a + b) & c)"],
    ["a - b + c", "(a - (b + c))"],
    ["a & b - c & d", "((a & b) - (c & d))"],
    ["a - b - c", "((a - b) - c)"],
    ["(a - b) + c", "((a - b) + c)"],
    ["p->x + a & b->y", "((p->x + a) & b->y)"],
  ];
  for (const [text, expected] of cases) {
    it(text, () => {
      const ast = parseSchema(`definition t/doc {\n permission x = ${text}\n}`);
      const member = ast.definitions[0]!.members[0]!;
      expect(member.kind === "permission" && show(member.expression)).toBe(expected);
    });
  }
});

describe("comments and layout", () => {
  it("accepts line and block comments and statements on separate lines", () => {
    const model = compileSchema(`// header
/** the user type */
definition user {}
definition doc { /* inline */
  relation viewer: user | user:* // trailing
  permission view = viewer
}`);
    expect(model.definitions.get("doc")!.relations.get("viewer")!.allowed).toEqual([
      { type: "user", typeIndex: 0, wildcard: false, expiration: false },
      { type: "user", typeIndex: 0, wildcard: true, expiration: false },
    ]);
  });
});

describe("malformed and invalid schemas are rejected with a code and line:column", () => {
  for (const c of invalid) {
    it(c.name, () => {
      let error: unknown;
      try {
        compileSchema(parseSchema(c.schema.join("\n"), "case.zed"));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SchemaError);
      const e = error as SchemaError;
      expect({ code: e.code, line: e.line, column: e.column }).toEqual({ code: c.code, line: c.line, column: c.column });
      expect(e.message).toContain(`case.zed:${c.line}:${c.column}`);
    });
  }
});
