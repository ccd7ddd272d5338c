import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openTestStore, type TestStore } from "@gatehouse/store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../src/index.js";
import { testRoleConfiguration } from "./helpers.js";

describe("console static files under /console/", () => {
  let store: TestStore;
  const servers: { stop(): Promise<void> }[] = [];
  let built: string;
  let missing: string;

  const start = async (consoleDir: string | null) => {
    const server = buildServer({ port: 0, host: "127.0.0.1" }, { store, roleConfiguration: await testRoleConfiguration(), consoleDir });
    servers.push(server);
    return `http://127.0.0.1:${(await server.start()).port}`;
  };

  beforeAll(async () => {
    store = await openTestStore({ name: "pglite" });
    const dir = mkdtempSync(path.join(tmpdir(), "console-"));
    mkdirSync(path.join(dir, "assets"));
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>Gatehouse console</title>");
    writeFileSync(path.join(dir, "assets", "app-abc123.js"), "console.log(1)");
    built = await start(dir);
    missing = await start(null);
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await store?.close();
  });

  it("serves the page with a same-origin-only content security policy", async () => {
    const page = await fetch(`${built}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Gatehouse console");
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const asset = await fetch(`${built}/console/assets/app-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
  });

  it("redirects /console to /console/ and answers unknown files with problem+json 404", async () => {
    const bare = await fetch(`${built}/console`, { redirect: "manual" });
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/console/");
    const unknown = await fetch(`${built}/console/nope.js`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
  });

  it("sends a browser opening the bare address to the console", async () => {
    const root = await fetch(`${built}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console/");
  });

  it("says so when the console is not built", async () => {
    const res = await fetch(`${missing}/console/`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toContain("not built");
  });
});
