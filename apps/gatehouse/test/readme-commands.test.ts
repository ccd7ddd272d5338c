// The README's operator-CLI table names every command the CLI has (`roles` and `org-mode` were
// missing once), so a newcomer reading it finds them all.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";

const readme = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "README.md"), "utf8");

/** The commands named in the first column of the "Operator CLI" table (its rows up to the first line that is not one). */
function tableCommands(): Set<string> {
  const lines = readme.slice(readme.indexOf("Operator CLI")).split("\n");
  const start = lines.findIndex((line) => line.startsWith("| Command"));
  const names = new Set<string>();
  for (const row of lines.slice(start + 2)) {
    if (!row.startsWith("| ")) break;
    for (const match of (row.split(" | ")[0] ?? "").matchAll(/`([a-z][a-z-]*)/g)) names.add(match[1]!);
  }
  return names;
}

describe("README operator-CLI table", () => {
  it("names every top-level command of the CLI", () => {
    const commands = buildProgram()
      .commands.map((c) => c.name())
      .filter((name) => name !== "help");
    expect(commands.length).toBeGreaterThan(5);
    const named = tableCommands();
    expect(commands.filter((name) => !named.has(name))).toEqual([]);
  });
});
