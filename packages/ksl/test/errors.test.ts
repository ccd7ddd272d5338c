import { describe, expect, it } from "vitest";
import { compile, compileOrThrow, KSL_ERROR_CODES, KslError, formatDiagnostic, type KslErrorCode, type KslSource } from "../src/index.js";

/** A small, valid core namespace the bad inputs build on. */
const core = `version 0.1
namespace core
public type principal {}
internal type secret {}
private type hidden {}
public type group {
    relation member: [Any principal or group.member]
}
public type folder {
    relation parent: [AtMostOne folder]
    relation viewer: [Any principal]
    relation alias: viewer
}
public extension grant(perm) {
    type folder {
        relation \`\${perm}\`: viewer
    }
}
internal extension inside(perm) {
    type folder {
        relation \`\${perm}\`: viewer
    }
}
`;

const src = (fileName: string, text: string): KslSource => ({ fileName, text });
const app = (body: string): KslSource => src("app.ksl", `version 0.1\nnamespace app\nimport core\n${body}`);

interface ErrorCase {
  name: string;
  inputs: KslSource[];
  code: KslErrorCode;
  file: string;
  line: number;
  column: number;
}

const cases: ErrorCase[] = [
  { name: "unexpected character", inputs: [app("type t { relation r: [core.principal] % }")], code: "unexpected-character", file: "app.ksl", line: 4, column: 39 },
  { name: "double-quoted argument", inputs: [app('@core.grant(perm:"x");')], code: "unexpected-character", file: "app.ksl", line: 4, column: 18 },
  { name: "block comment", inputs: [app("/* no */ type t {}")], code: "block-comment", file: "app.ksl", line: 4, column: 1 },
  { name: "number that is not a version", inputs: [src("n.ksl", "version 12\nnamespace n\ntype t {}")], code: "invalid-number", file: "n.ksl", line: 1, column: 9 },
  { name: "missing version line", inputs: [src("v.ksl", "namespace v\ntype t {}")], code: "syntax-error", file: "v.ksl", line: 1, column: 1 },
  { name: "keyword used as a name", inputs: [app("type t { relation version: [core.principal] }")], code: "syntax-error", file: "app.ksl", line: 4, column: 19 },
  { name: "traversal with two hops", inputs: [app("type t { relation a: [core.folder]\n relation b: a.parent.viewer }")], code: "syntax-error", file: "app.ksl", line: 5, column: 22 },
  { name: "namespace decorator without ';'", inputs: [app("@core.grant(perm:'x')")], code: "syntax-error", file: "app.ksl", line: 4, column: 1 },
  { name: "';' after a relation decorator", inputs: [app("type t {\n @core.grant(perm:'x');\n relation r: [core.principal] }")], code: "syntax-error", file: "app.ksl", line: 5, column: 23 },
  { name: "template outside an extension", inputs: [app("type t { relation `${x}`: [core.principal] }")], code: "syntax-error", file: "app.ksl", line: 4, column: 19 },
  { name: "file without declarations", inputs: [src("e.ksl", "version 0.1\nnamespace e\n")], code: "syntax-error", file: "e.ksl", line: 3, column: 1 },
  { name: "two tokens in an argument", inputs: [app("@core.grant(perm:'a b');")], code: "invalid-argument-value", file: "app.ksl", line: 4, column: 21 },
  { name: "empty argument", inputs: [app("@core.grant(perm:'');")], code: "invalid-argument-value", file: "app.ksl", line: 4, column: 19 },
  { name: "argument given twice", inputs: [app("@core.grant(perm:'a', perm:'b');")], code: "duplicate-argument", file: "app.ksl", line: 4, column: 23 },
  { name: "IR that is not JSON", inputs: [src("ir.json", '{"name": "x",\n  oops}')], code: "invalid-ir", file: "ir.json", line: 2, column: 3 },
  {
    name: "IR with a bad body kind",
    inputs: [src("ir.json", '{"name":"x","types":[{"name":"t","relations":[{"name":"r","body":{"kind":"weird"}}]}]}')],
    code: "invalid-ir",
    file: "ir.json",
    line: 1,
    column: 1,
  },
  {
    name: "namespace declared twice",
    inputs: [src("a.ksl", "version 0.1\nnamespace dup\ntype a {}"), src("b.ksl", "version 0.1\nnamespace dup\ntype b {}")],
    code: "duplicate-namespace",
    file: "b.ksl",
    line: 2,
    column: 1,
  },
  { name: "type declared twice", inputs: [app("type t {}\ntype t {}")], code: "duplicate-type", file: "app.ksl", line: 5, column: 1 },
  { name: "relation declared twice", inputs: [app("type t {\n relation r: [core.principal]\n relation r: [core.principal] }")], code: "duplicate-relation", file: "app.ksl", line: 6, column: 2 },
  { name: "extension adds an existing relation", inputs: [app("@core.grant(perm:'alias');")], code: "duplicate-relation", file: "app.ksl", line: 4, column: 1 },
  {
    name: "extension declared twice",
    inputs: [app("extension e(p) { type t { relation x: [core.principal] } }\nextension e(p) { type t { relation y: [core.principal] } }")],
    code: "duplicate-extension",
    file: "app.ksl",
    line: 5,
    column: 1,
  },
  { name: "import of an undeclared namespace", inputs: [src("m.ksl", "version 0.1\nnamespace m\nimport nowhere\ntype t {}")], code: "unknown-namespace", file: "m.ksl", line: 2, column: 1 },
  {
    name: "decorator from a namespace that is not imported",
    inputs: [src("m.ksl", "version 0.1\nnamespace m\n@core.grant(perm:'x');")],
    code: "namespace-not-imported",
    file: "m.ksl",
    line: 3,
    column: 1,
  },
  { name: "unknown extension", inputs: [app("@core.nope(perm:'x');")], code: "unknown-extension", file: "app.ksl", line: 4, column: 1 },
  { name: "internal extension used from another namespace", inputs: [app("@core.inside(perm:'x');")], code: "extension-not-visible", file: "app.ksl", line: 4, column: 1 },
  { name: "missing extension argument", inputs: [app("@core.grant(other:'x');")], code: "missing-extension-argument", file: "app.ksl", line: 4, column: 1 },
  { name: "argument that makes an invalid name", inputs: [app("@core.grant(perm:'0.1');")], code: "invalid-generated-name", file: "app.ksl", line: 4, column: 1 },
  { name: "unknown type", inputs: [app("type t { relation r: [core.nobody] }")], code: "unknown-type", file: "app.ksl", line: 4, column: 23 },
  { name: "bool without the rbac namespace", inputs: [app("type t { relation r: [bool] }")], code: "unknown-type", file: "app.ksl", line: 4, column: 23 },
  { name: "internal type from another namespace", inputs: [app("type t { relation r: [core.secret] }")], code: "type-not-visible", file: "app.ksl", line: 4, column: 23 },
  {
    name: "private type",
    inputs: [src("core.ksl", core.replace("public type group {", "public type group {\n    relation h: [Any hidden]"))],
    code: "type-not-visible",
    file: "core.ksl",
    line: 7,
    column: 22,
  },
  { name: "reference to an unknown relation", inputs: [app("type t { relation r: missing }")], code: "unknown-relation", file: "app.ksl", line: 4, column: 22 },
  { name: "traversal over an unknown relation", inputs: [app("type t { relation r: missing.viewer }")], code: "unknown-relation", file: "app.ksl", line: 4, column: 22 },
  { name: "subject set with an unknown relation", inputs: [app("type t { relation r: [core.group.owner] }")], code: "unknown-subject-relation", file: "app.ksl", line: 4, column: 23 },
  {
    name: "traversal to a relation a target type lacks",
    inputs: [app("type t { relation f: [core.folder or core.principal]\n relation r: f.viewer }")],
    code: "invalid-traversal",
    file: "app.ksl",
    line: 5,
    column: 14,
  },
  {
    name: "traversal over a relation without [...] types",
    inputs: [app("type t { relation a: [core.folder]\n relation b: a\n relation r: b.viewer }")],
    code: "traversal-without-direct-types",
    file: "app.ksl",
    line: 6,
    column: 14,
  },
];

describe("error kinds", () => {
  it.each(cases)("$name -> $code", ({ inputs, code, file, line, column }) => {
    const sources = inputs.some((i) => i.fileName === "core.ksl") ? inputs : [src("core.ksl", core), ...inputs];
    const result = compile(sources);
    expect(result.zed).toBe("");
    expect(result.ast).toBeUndefined();
    expect(result.errors.map(formatDiagnostic)).toContainEqual(expect.stringMatching(new RegExp(`^${file}:${line}:${column} ${code} `)));
  });

  it("covers every declared error code", () => {
    expect(new Set(cases.map((c) => c.code))).toEqual(new Set(KSL_ERROR_CODES));
  });

  it("the core used by the cases is itself valid", () => {
    expect(compile([src("core.ksl", core)]).errors).toEqual([]);
  });
});

describe("error reporting", () => {
  it("reports every error, across files and phases, sorted by file and position", () => {
    const result = compile([
      src("core.ksl", core),
      src("b.ksl", "version 0.1\nnamespace b\nimport core\ntype t {\n relation r: [core.nobody]\n relation s: missing\n}"),
      src("a.ksl", "version 0.1\nnamespace a\ntype t {\n relation x: [principal] %\n relation y: [\n relation z: nothing\n}"),
    ]);
    expect(result.errors.map(formatDiagnostic)).toEqual(
      [
        "a.ksl:4:26 unexpected-character unexpected character '%'",
        "a.ksl:6:2 syntax-error expected a name as a type in '[...]', found keyword 'relation'",
        "a.ksl:4:15 unknown-type a.t#x: type 'a.principal' does not exist",
        "a.ksl:6:14 unknown-relation a.t#z: 'nothing' is not a relation of 'a.t'",
        "b.ksl:5:15 unknown-type b.t#r: type 'core.nobody' does not exist",
        "b.ksl:6:14 unknown-relation b.t#s: 'missing' is not a relation of 'b.t'",
      ].sort((x, y) => sortKey(x).localeCompare(sortKey(y))),
    );
  });

  it("compileOrThrow raises one KslError carrying every diagnostic", () => {
    const run = () => compileOrThrow([src("core.ksl", core), app("type t { relation a: nope\n relation b: nada }")]);
    expect(run).toThrow(KslError);
    try {
      run();
    } catch (e) {
      const err = e as KslError;
      expect(err.code).toBe("unknown-relation");
      expect(err.diagnostics).toHaveLength(2);
      expect(err.message).toMatch(/^app\.ksl:4:22 unknown-relation .*\(and 1 more\)$/);
    }
  });
});

/** file, then numeric line and column, matching the compiler's ordering. */
function sortKey(formatted: string): string {
  const [file, line, column] = formatted.split(" ")[0]!.split(":");
  return `${file}:${line!.padStart(6, "0")}:${column!.padStart(6, "0")}`;
}
