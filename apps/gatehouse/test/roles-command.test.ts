// `gatehouse roles seed --config-dir`: progress on stderr, a report of what changed, idempotent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { rbacConfigRepoEnv } from "@gatehouse/role-config/testing";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { buildProgram } from "../src/program.js";

let out = "";
let err = "";
let dataDir = "";
beforeEach(() => {
  out = "";
  err = "";
  dataDir = mkdtempSync(path.join(tmpdir(), "roles-seed-"));
  process.exitCode = undefined;
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

const seed = async (...args: string[]): Promise<void> => {
  await buildProgram().parseAsync(["node", "gatehouse", "roles", "seed", "--config-dir", rbacConfigRepoEnv("prod"), "--data-dir", dataDir, ...args]);
};

it("seeds the prod snapshot's roles with progress, then a second run writes nothing", async () => {
  await seed();
  expect(process.exitCode ?? 0).toBe(0);
  expect(out).toMatch(/^62 created, 0 updated, 0 unchanged; revision \d+/);
  expect(err).toContain("[1/62] ");
  expect(err).toContain("[62/62] ");
  out = "";
  await seed("--json");
  expect(JSON.parse(out)).toMatchObject({ created: [], updated: [], changed: false });
  expect(JSON.parse(out).unchanged).toHaveLength(62);
}, 60_000);
