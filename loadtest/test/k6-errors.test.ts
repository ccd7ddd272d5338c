// With the server unreachable, a k6 script must fail its run. k6 cannot run here, so this checks
// the two things that decide it: the wrapper counts exceptions as errors (run under Node), and
// every network call of every iteration function runs inside the wrapper, whose error metric has
// a threshold (read from the scripts' syntax tree).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it, vi } from "vitest";
import { countingErrors, countingErrorsAsync } from "../k6/lib/errors.ts";

const k6Dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../k6");
const scripts = readdirSync(k6Dir).filter((f) => f.endsWith(".ts"));
const WRAPPERS = new Set(["countingErrors", "countingErrorsAsync"]);

function recorder() {
  const samples: boolean[] = [];
  return { samples, add: (failed: boolean) => void samples.push(failed) };
}

describe("k6 error accounting", () => {
  it("counts a thrown exception, a rejected promise and a failed check as errors", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const errors = recorder();
    countingErrors(errors, () => {
      throw new Error("connection refused");
    });
    countingErrors(errors, () => false);
    countingErrors(errors, () => true);
    await countingErrorsAsync(errors, () => Promise.reject(new Error("stream error")));
    await countingErrorsAsync(errors, async () => true);
    expect(errors.samples).toEqual([true, true, false, true, false]);
  });

  /** Whether `node` lies inside the function passed to a wrapper call. */
  const insideWrapper = (node: ts.Node): boolean => {
    for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && WRAPPERS.has(n.expression.text)) return true;
    }
    return false;
  };
  /** Network calls: inventory(), http.*, new grpc.Stream, and calls of the script's own helpers. */
  const isNetworkCall = (node: ts.Node, helpers: Set<string>): boolean =>
    (ts.isCallExpression(node) &&
      ((ts.isIdentifier(node.expression) && (node.expression.text === "inventory" || helpers.has(node.expression.text))) ||
        (ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression) && node.expression.expression.text === "http"))) ||
    (ts.isNewExpression(node) && node.expression.getText() === "grpc.Stream");

  for (const script of scripts) {
    it(`${script}: every iteration runs inside the error wrapper, whose metric has a threshold`, () => {
      const source = ts.createSourceFile(script, readFileSync(path.join(k6Dir, script), "utf8"), ts.ScriptTarget.ES2022, true);
      const exported: ts.FunctionDeclaration[] = [];
      const helpers = new Set<string>();
      for (const st of source.statements) {
        if (!ts.isFunctionDeclaration(st)) continue;
        if (st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) exported.push(st);
        else if (st.name) helpers.add(st.name.text);
      }
      expect(exported.length, "iteration functions").toBeGreaterThan(0);
      const rateMetrics = new Map<string, string>();
      const wrapperMetrics = new Set<string>();
      const visit = (node: ts.Node, inExported: boolean): void => {
        if (ts.isVariableDeclaration(node) && node.initializer && ts.isNewExpression(node.initializer) && node.initializer.expression.getText() === "Rate") {
          const name = node.initializer.arguments?.[0];
          if (name && ts.isStringLiteral(name)) rateMetrics.set(node.name.getText(), name.text);
        }
        if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && WRAPPERS.has(node.expression.text)) {
          wrapperMetrics.add(node.arguments[0]?.getText() ?? "");
        }
        if (inExported && isNetworkCall(node, helpers)) {
          expect(insideWrapper(node), `${script}: '${node.getText().slice(0, 60)}' can throw outside the error wrapper`).toBe(true);
        }
        node.forEachChild((child) => visit(child, inExported));
      };
      for (const st of source.statements) visit(st, exported.includes(st as ts.FunctionDeclaration));
      for (const fn of exported) {
        let wrapped = false;
        fn.forEachChild(function find(n: ts.Node): void {
          if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && WRAPPERS.has(n.expression.text)) wrapped = true;
          n.forEachChild(find);
        });
        expect(wrapped, `${script}: ${fn.name?.text ?? "default"} does not use the error wrapper`).toBe(true);
      }
      // The wrapper's metric is a Rate whose name appears in the thresholds.
      const optionsText = source.statements.find((st) => ts.isVariableStatement(st) && st.getText().includes("options"))?.getText() ?? "";
      for (const metric of wrapperMetrics) {
        const name = rateMetrics.get(metric);
        expect(name, `${script}: ${metric} is not a Rate metric`).toBeDefined();
        expect(optionsText, `${script}: no threshold on ${name}`).toMatch(new RegExp(`thresholds[\\s\\S]*"${name}"|${name}:`));
      }
    });
  }
});
