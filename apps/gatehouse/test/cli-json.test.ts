// `--json` on the commands that print results: one JSON document on stdout, in the documented shape.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { captureOutput } from "./support/capture-output.js";

const output = captureOutput();

async function run(...args: string[]): Promise<number> {
  await buildProgram().parseAsync(["node", "gatehouse", ...args]);
  return Number(process.exitCode ?? 0);
}

describe("gatehouse check / list --json against the demo organisation", () => {
  let gh: RunningGatehouse;
  let target: string;
  let workspaces: Record<string, string>;
  beforeAll(async () => {
    gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: true }, createSilentLogger());
    target = `127.0.0.1:${gh.ports.grpc}`;
    workspaces = gh.demo!.workspaces;
  });
  afterAll(() => gh?.stop());

  it("check --json prints the verdict as one object (exit 0 allowed, 1 denied)", async () => {
    const object = `rbac/workspace:${workspaces.production}`;
    expect(await run("check", "--target", target, "--object", object, "--relation", "patch_system_edit", "--subject", "carol", "--json")).toBe(0);
    expect(JSON.parse(output.out)).toEqual({ allowed: true, subject: "carol", relation: "patch_system_edit", object });
    output.out = "";
    expect(await run("check", "--target", target, "--object", object, "--relation", "patch_system_edit", "--subject", "dave", "--json")).toBe(1);
    expect(JSON.parse(output.out)).toEqual({ allowed: false, subject: "dave", relation: "patch_system_edit", object });
  });

  it("check says so when the object does not exist, instead of a bare DENIED (workspace and host)", async () => {
    const missing = "rbac/workspace:00000000-0000-4000-8000-000000000000";
    expect(await run("check", "--target", target, "--object", missing, "--relation", "inventory_host_view", "--subject", "alice", "--json")).toBe(1);
    expect(JSON.parse(output.out)).toEqual({ allowed: false, subject: "alice", relation: "inventory_host_view", object: missing, known: false });
    output.out = "";
    output.err = "";
    expect(await run("check", "--target", target, "--object", missing, "--relation", "inventory_host_view", "--subject", "alice")).toBe(1);
    expect(output.out).toBe(`DENIED  alice inventory_host_view ${missing}: no such object\n`);
    expect(output.err).toContain("knows no rbac/workspace with id '00000000-0000-4000-8000-000000000000'");
    output.out = "";
    output.err = "";
    expect(await run("check", "--target", target, "--object", "hbi/host:no-such-host", "--relation", "view", "--subject", "alice")).toBe(1);
    expect(output.out).toBe("DENIED  alice view hbi/host:no-such-host: no such object\n");
    // An existing workspace denied is a plain DENIED: the Root Workspace (whose parent is the tenant) too.
    for (const id of [workspaces.production, workspaces.root]) {
      output.out = "";
      output.err = "";
      expect(await run("check", "--target", target, "--object", `rbac/workspace:${id}`, "--relation", "patch_system_edit", "--subject", "dave")).toBe(1);
      expect(output.out).toBe(`DENIED  dave patch_system_edit rbac/workspace:${id}\n`);
      expect(output.err).toBe("");
    }
  });

  it("list --json prints one document with every object id and their count, nothing on stderr", async () => {
    expect(await run("list", "--target", target, "--type", "rbac/workspace", "--relation", "inventory_host_view", "--subject", "bob", "--json")).toBe(0);
    const doc = JSON.parse(output.out) as { type: string; relation: string; subject: string; objects: string[]; count: number };
    expect(Object.keys(doc)).toEqual(["type", "relation", "subject", "objects", "count"]);
    expect(doc).toMatchObject({ type: "rbac/workspace", relation: "inventory_host_view", subject: "bob" });
    expect(doc.objects).toContain(workspaces.production);
    expect(doc.count).toBe(doc.objects.length);
    expect(output.err).toBe("");

    // The same ids as the text listing.
    output.out = "";
    expect(await run("list", "--target", target, "--type", "rbac/workspace", "--relation", "inventory_host_view", "--subject", "bob")).toBe(0);
    expect(
      output.out
        .trim()
        .split("\n")
        .map((line) => line.replace("rbac/workspace:", "")),
    ).toEqual(doc.objects);
  });

  it("list --json with nothing accessible is an empty list", async () => {
    expect(await run("list", "--target", target, "--type", "rbac/workspace", "--relation", "inventory_host_view", "--subject", "nobody", "--json")).toBe(0);
    expect(JSON.parse(output.out)).toEqual({ type: "rbac/workspace", relation: "inventory_host_view", subject: "nobody", objects: [], count: 0 });
  });
});

describe("gatehouse schema --json", () => {
  let dir = "";
  let ksl = "";
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "schema-json-"));
    ksl = path.join(dir, "core.ksl");
    writeFileSync(ksl, "version 0.1\nnamespace core\npublic type user {}\npublic type doc {\n relation owner: [Any user]\n relation view: owner\n}\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("schema check --json prints { ok, files, definitions }", async () => {
    expect(await run("schema", "check", ksl, "--json")).toBe(0);
    expect(JSON.parse(output.out)).toEqual({ ok: true, files: 1, definitions: 2 });
  });

  it("schema build --json prints { output, definitions, files }, and the zed itself with -o -", async () => {
    const zedFile = path.join(dir, "out.zed");
    expect(await run("schema", "build", ksl, "-o", zedFile, "--json")).toBe(0);
    expect(JSON.parse(output.out)).toEqual({ output: zedFile, definitions: 2, files: 1 });
    output.out = "";
    expect(await run("schema", "build", ksl, "-o", "-", "--json")).toBe(0);
    const doc = JSON.parse(output.out) as { zed: string };
    expect(doc).toMatchObject({ output: "-", definitions: 2 });
    expect(doc.zed).toContain("definition core/doc {");
  });
});
