import { describe, expect, it } from "vitest";
import { compile, formatDiagnostic, printExpression, printZed, type KslSource } from "../src/index.js";

const src = (fileName: string, text: string): KslSource => ({ fileName, text });

/** Compiles and returns the zed text, failing loudly on diagnostics. */
function zedOf(...sources: KslSource[]): string {
  const result = compile(sources);
  expect(result.errors.map(formatDiagnostic)).toEqual([]);
  return result.zed;
}

const rbac = src(
  "rbac.ksl",
  `version 0.1
namespace rbac
public type principal {}
`,
);

describe("relation bodies", () => {
  it.each([
    // SpiceDB's generator parenthesises a union that contains a non-union operation.
    ["a or b and c", "(a + (b & c))"],
    ["a and b and c", "((a & b) & c)"],
    ["a or b or c", "a + b + c"],
    ["a unless b or c", "(a - b + c)"],
    ["a and b unless c", "((a & b) - c)"],
    ["(a or b) and c", "(a + b & c)"],
    ["a and (b or c)", "(a & b + c)"],
    ["a unless (b unless c)", "(a - (b - c))"],
  ])("KSL '%s' prints as zed '%s'", (body, zed) => {
    const out = zedOf(src("n.ksl", `version 0.1\nnamespace n\ntype t {\n relation a: [Any u]\n relation b: a\n relation c: a\n relation x: ${body}\n}\ntype u {}`));
    expect(out).toContain(`\tpermission x = ${zed}\n`);
  });

  it("emits a t_ relation per box, subject types in body order, bool as rbac/principal:*, subject sets with #", () => {
    const out = zedOf(
      rbac,
      src(
        "n.ksl",
        `version 0.1
namespace n
import rbac
type group { relation member: [Any rbac.principal or group.member] }
type doc {
    relation parent: [AtMostOne doc]
    relation #version: [ExactlyOne bool or group.member] or parent.#version
}`,
      ),
    );
    expect(out).toBe(`definition n/doc {
\tpermission parent = t_parent
\trelation t_parent: n/doc
\tpermission version = t_version + t_parent->version
\trelation t_version: rbac/principal:* | n/group#member
}

definition n/group {
\tpermission member = t_member
\trelation t_member: rbac/principal | n/group#member
}

definition rbac/principal {}`);
  });

  it("treats the first segment as a namespace only when it is imported", () => {
    const out = zedOf(src("n.ksl", "version 0.1\nnamespace n\ntype rbac { relation workspace: [Any n] }\ntype n {}\ntype t { relation r: [Any rbac.workspace] }"));
    expect(out).toContain("relation t_r: n/rbac#workspace");
  });
});

describe("extensions", () => {
  const ext = src(
    "core.ksl",
    `version 0.1
namespace core
public type role {
    relation viewer: [Any role]
}
public extension grant(app, verb) {
    type role {
        allow_duplicates private relation \`\${app} _all\`: [Any role]
        relation \`\${app}_\${verb}\`: \`\${app}_all\` or viewer
    }
}
public extension mark() {
    type \`\${NAMESPACE}_marker\` {
        relation \`from_\${TYPE}_\${RELATION}\`: [Any role]
    }
}
public extension strict(app) {
    type role {
        relation \`\${app}_all\`: [Any role]
    }
}
`,
  );

  it("adds relations to the extension's own namespace, ignoring whitespace inside templates and unknown arguments", () => {
    const out = zedOf(ext, src("a.ksl", "version 0.1\nnamespace app\nimport core\n@core.grant(app:'inv', verb:'read', extra:'ignored');\n@core.mark();"));
    expect(out).toContain("definition core/role {\n\tpermission inv_all = t_inv_all\n\trelation t_inv_all: core/role\n\tpermission inv_read = inv_all + viewer\n");
    // NAMESPACE is the calling namespace; TYPE and RELATION are empty at namespace level.
    expect(out).toContain("definition core/app_marker {\n\tpermission from__ = t_from__");
  });

  it("sets TYPE and RELATION for type- and relation-level decorators", () => {
    const out = zedOf(ext, src("a.ksl", "version 0.1\nnamespace app\nimport core\n@core.mark()\ntype host {\n @core.mark()\n relation owner: [Any core.role]\n}"));
    expect(out).toContain("\tpermission from_host_ = t_from_host_");
    expect(out).toContain("\tpermission from_host_owner = t_from_host_owner");
  });

  it("keeps the first definition of an allow_duplicates relation and drops later copies", () => {
    const out = zedOf(ext, src("a.ksl", "version 0.1\nnamespace app\nimport core\n@core.grant(app:'inv', verb:'read');\n@core.grant(app:'inv', verb:'write');"));
    expect(out.match(/permission inv_all =/g)).toHaveLength(1);
    expect(out).toContain("permission inv_write = inv_all + viewer");
  });

  it("is order-dependent like the reference compiler: duplicable first then strict fails, strict first then duplicable succeeds", () => {
    const dupThenStrict = compile([ext, src("a.ksl", "version 0.1\nnamespace app\nimport core\n@core.grant(app:'inv', verb:'read');\n@core.strict(app:'inv');")]);
    expect(dupThenStrict.errors.map((e) => e.code)).toEqual(["duplicate-relation"]);
    expect(dupThenStrict.errors[0]).toMatchObject({ file: "a.ksl", line: 5, column: 1 });

    const strictThenDup = compile([ext, src("a.ksl", "version 0.1\nnamespace app\nimport core\n@core.strict(app:'inv');\n@core.grant(app:'inv', verb:'read');")]);
    expect(strictThenDup.errors).toEqual([]);
    expect(strictThenDup.zed).toContain("permission inv_all = t_inv_all");
  });

  it("applies namespaces in sorted order regardless of input order", () => {
    // 'a_first' sorts before 'b_second', so its strict definition comes first and the duplicable copy is dropped.
    const a = src("z.ksl", "version 0.1\nnamespace a_first\nimport core\n@core.strict(app:'inv');");
    const b = src("y.ksl", "version 0.1\nnamespace b_second\nimport core\n@core.grant(app:'inv', verb:'read');");
    expect(compile([ext, b, a]).errors).toEqual([]);
  });

  it("accepts keywords and version numbers as argument values", () => {
    const out = zedOf(ext, src("a.ksl", "version 0.1\nnamespace app\nimport core\n@core.grant(app:'type', verb : 'Any');"));
    expect(out).toContain("permission type_Any = type_all + viewer");
  });
});

describe("IR JSON inputs", () => {
  it("applies the extension references of an IR file like a namespace-level decorator", () => {
    const core = src(
      "core.ksl",
      "version 0.1\nnamespace rbac\npublic type principal {}\ntype role {}\npublic extension only(perm) { type role { allow_duplicates private relation `${perm}`: [bool] } }",
    );
    const ir = src(
      "v1.json",
      JSON.stringify({
        name: "rbac_v1_permissions",
        imports: ["rbac"],
        extension_references: [
          { namespace: "rbac", name: "only", params: { perm: "cost_all_all" } },
          { namespace: "rbac", name: "only", params: { perm: "cost_all_all" } },
        ],
      }),
    );
    expect(zedOf(core, ir)).toContain("definition rbac/role {\n\tpermission cost_all_all = t_cost_all_all\n\trelation t_cost_all_all: rbac/principal:*\n}");
  });

  it("reads types and relation bodies from IR", () => {
    const ir = src(
      "m.json",
      JSON.stringify({
        name: "m",
        types: [
          { name: "user", relations: [] },
          {
            name: "doc",
            relations: [
              { name: "owner", body: { kind: "self", types: [{ name: "user" }], cardinality: "ExactlyOne" } },
              {
                name: "view",
                visibility: "public",
                body: { kind: "union", left: { kind: "reference", relation: "owner" }, right: { kind: "nested_reference", relation: "owner", sub_relation: "self" } },
              },
            ],
          },
        ],
      }),
    );
    const bad = compile([ir]);
    expect(bad.errors.map((e) => e.code)).toEqual(["invalid-traversal"]);
  });
});

describe("zed object", () => {
  it("positions of the generated schema object point into the printed text", () => {
    const result = compile([rbac, src("n.ksl", "version 0.1\nnamespace n\nimport rbac\ntype t {\n relation p: [Any t]\n relation a: [Any rbac.principal]\n relation b: a and p.a\n}")]);
    expect(result.errors).toEqual([]);
    const lines = result.zed.split("\n");
    for (const def of result.ast!.definitions) {
      expect(lines[def.line - 1]!.slice(def.column - 1)).toMatch(new RegExp(`^definition ${def.name} `));
      for (const m of def.members) {
        expect(lines[m.line - 1]!.slice(m.column - 1)).toMatch(new RegExp(`^${m.kind} ${m.name}`));
        if (m.kind === "permission" && m.expression.kind === "intersection") {
          const right = m.expression.right;
          expect(lines[right.line - 1]!.slice(right.column - 1)).toMatch(/^t_p->a\)$/);
        }
      }
    }
  });

  it("prints an object back to the same text", () => {
    const result = compile([rbac, src("n.ksl", "version 0.1\nnamespace n\nimport rbac\ntype t {\n relation a: [Any rbac.principal]\n relation b: a unless a\n}")]);
    expect(printZed(result.ast!)).toBe(result.zed);
    expect(printExpression({ kind: "nil", line: 1, column: 1 })).toBe("nil");
  });
});
