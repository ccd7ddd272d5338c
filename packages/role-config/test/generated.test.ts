// CI staleness check: the committed configs/<env>/schemas/schema.zed must equal a fresh build from the KSL sources.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildSchema, ENVIRONMENTS, packageRoot, schemaZedFile } from "../src/index.js";
import { firstDifference } from "./support/diff.js";

describe.each(ENVIRONMENTS)("%s", (env) => {
  it(`committed ${env}/schema.zed is up to date (run 'pnpm --filter @gatehouse/role-config generate' to refresh)`, () => {
    const committed = readFileSync(`${packageRoot}${schemaZedFile(env)}`, "utf8");
    expect(firstDifference(buildSchema(env), committed)).toBeUndefined();
  });
});
