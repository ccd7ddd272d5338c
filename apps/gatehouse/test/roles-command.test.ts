// `gatehouse roles seed --config-dir`: progress on stderr, a report of what changed, idempotent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { rbacConfigRepoEnv } from "@gatehouse/role-config/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";
import { captureOutput } from "./support/capture-output.js";

const output = captureOutput();
let dataDir = "";
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "roles-seed-"));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const seed = async (...args: string[]): Promise<void> => {
  await buildProgram().parseAsync(["node", "gatehouse", "roles", "seed", "--config-dir", rbacConfigRepoEnv("prod"), "--data-dir", dataDir, ...args]);
};

it("seeds the prod snapshot's roles with progress, then a second run writes nothing", async () => {
  await seed();
  expect(process.exitCode ?? 0).toBe(0);
  expect(output.out).toMatch(/^62 created, 0 updated, 0 unchanged; revision \d+/);
  expect(output.err).toContain("[1/62] ");
  expect(output.err).toContain("[62/62] ");
  output.out = "";
  await seed("--json");
  expect(JSON.parse(output.out)).toMatchObject({ created: [], updated: [], changed: false });
  expect(JSON.parse(output.out).unchanged).toHaveLength(62);
});
