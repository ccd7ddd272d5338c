// `pnpm --filter @gatehouse/role-config generate`: rewrites configs/<env>/schemas/schema.zed from
// the KSL sources. With --check it only reports stale files (exit code 1), for CI.
import { readFileSync, writeFileSync } from "node:fs";
import { buildSchema, ENVIRONMENTS, schemaZedFile } from "./load.js";
import { packageRoot } from "./directory.js";
import { RoleConfigError } from "./errors.js";

const checkOnly = process.argv.includes("--check");
let stale = 0;
try {
  for (const env of ENVIRONMENTS) {
    const file = schemaZedFile(env);
    const zed = buildSchema(env);
    let current: string | undefined;
    try {
      current = readFileSync(`${packageRoot}${file}`, "utf8");
    } catch {
      current = undefined;
    }
    if (current === zed) {
      console.log(`${file}: up to date`);
    } else if (checkOnly) {
      stale++;
      console.error(`${file}: stale (run the 'generate' script)`);
    } else {
      writeFileSync(`${packageRoot}${file}`, zed);
      console.log(`${file}: written`);
    }
  }
} catch (e) {
  if (!(e instanceof RoleConfigError)) throw e;
  console.error(e.message);
  process.exit(2);
}
process.exit(stale > 0 ? 1 : 0);
