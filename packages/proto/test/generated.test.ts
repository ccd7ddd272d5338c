import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

it("committed src/gen matches a fresh buf + ts-proto generation", () => {
  const run = () => execFileSync("node", [join(packageDir, "scripts", "check-generated.mjs")], { cwd: packageDir, encoding: "utf8", stdio: "pipe" });
  expect(run).not.toThrow();
});
