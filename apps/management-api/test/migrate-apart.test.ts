// Migrations once per release (infra/'s Job) instead of at every start, through real processes:
// `src/migrate.ts` applies them, and a server started with GATEHOUSE_MIGRATE_ON_START=false refuses a
// database that lacks any, naming them, and starts on one that has them all.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATIONS } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const appDir = join(dirname(fileURLToPath(import.meta.url)), "..");

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs an entry until it exits, or (for the server) until it reports listening, then stops it. */
function run(entry: string, env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry], {
      cwd: appDir,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: "", GATEHOUSE_DATA_DIR: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let signalled = false;
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      // Once: the server logs more lines while it drains, and a second SIGTERM is a second request.
      if (!signalled && /management API listening/.test(output)) (signalled = true), child.kill("SIGTERM");
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("migrations apart from start", { timeout: 600_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gh-migrate-apart-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("the migrations entry refuses to run without a database to keep them (exit 2)", async () => {
    const { code, output } = await run("src/migrate.ts", {});
    expect(code).toBe(2);
    expect(output).toContain("DATABASE_URL (or GATEHOUSE_DATA_DIR) is required");
  });

  it("a server that may not migrate refuses an unmigrated database, naming what is missing", async () => {
    const { code, output } = await run("src/main.ts", { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MIGRATE_ON_START: "false" });
    expect(code).not.toBe(0);
    expect(output).toContain(`lacks migrations ${MIGRATIONS.map((m) => m.version).join(", ")}`);
    expect(output).not.toMatch(/management API listening/);
  });

  it("after the migrations entry, the same server starts without migrating", async () => {
    const migrated = await run("src/migrate.ts", { GATEHOUSE_DATA_DIR: dataDir });
    expect(migrated.output).toContain(`migrations: applied ${MIGRATIONS.map((m) => m.version).join(", ")}`);
    expect(migrated.code).toBe(0);
    const started = await run("src/main.ts", { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MIGRATE_ON_START: "false" });
    expect(started.output).toMatch(/management API listening/);
    expect(started.code).toBe(0);
  });
});
