// The README's configuration table and .env.example must be what the schemas generate.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { envExample, withConfigTable } from "../src/start/config-docs.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const regenerate = "run `pnpm --filter @gatehouse/gatehouse generate:config`";

describe("generated configuration docs", () => {
  it(`README.md's configuration table matches the schemas (${regenerate})`, () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    expect(withConfigTable(readme) === readme, regenerate).toBe(true);
  });

  it(`.env.example matches the schemas (${regenerate})`, () => {
    expect(readFileSync(path.join(root, ".env.example"), "utf8") === envExample(), regenerate).toBe(true);
  });

  it("lists every variable the services read, including the ones infra sets", () => {
    const text = envExample();
    for (const variable of ["DATABASE_URL", "REDIS_URL", "AUTHZ_GRPC_PORT", "AUTHN_MODE", "OIDC_ISSUER_URL", "SYSTEM_USERS", "SHUTDOWN_TIMEOUT_MS", "GATEHOUSE_DOMAIN"]) {
      expect(text).toContain(`# ${variable}=`);
    }
  });
});
