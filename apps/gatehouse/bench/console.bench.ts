// Console figures against the all-in-one server with the demo organisation (in memory):
//   - explain endpoint latency p50/p99 (allowed, denied, group), beside a plain GET /workspaces/
//     baseline in the same run, sequential requests over keep-alive;
//   - the console bundle's size, raw and gzip;
//   - time to first render of the explorer in Chromium (navigation → form ready), median of runs;
//   - click to answer in Chromium: Explain (click → verdict shown) beside the same explain request
//     sent from the page alone, and Grant / Revoke in the workspace tree (click → tree redrawn).
// Usage: pnpm --filter @gatehouse/gatehouse bench   (BENCH_REQUESTS, BENCH_RENDERS, BENCH_CLICKS, CHROMIUM_PATH)
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { createSilentLogger } from "@gatehouse/telemetry";
import { chromium } from "playwright-core";
import { startGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const requests = Number(process.env["BENCH_REQUESTS"] ?? 2000);
const renders = Number(process.env["BENCH_RENDERS"] ?? 15);
const clicks = Number(process.env["BENCH_CLICKS"] ?? 20);
const consoleDir = fileURLToPath(new URL("../../console/", import.meta.url));

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number) => `${n.toFixed(2)} ms`;

execFileSync(path.join(consoleDir, "node_modules/.bin/vite"), ["build", "--logLevel", "warn"], { cwd: consoleDir, stdio: "inherit" });
const assets = path.join(consoleDir, "dist/assets");
let raw = 0;
let gzip = 0;
for (const file of [...readdirSync(assets).map((f) => path.join(assets, f)), path.join(consoleDir, "dist/index.html")]) {
  const bytes = readFileSync(file);
  raw += bytes.length;
  gzip += gzipSync(bytes, { level: 9 }).length;
}
console.log(`console bundle (js + css + html): ${(raw / 1024).toFixed(1)} KiB raw, ${(gzip / 1024).toFixed(1)} KiB gzip`);

const gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: true }, createSilentLogger());
const base = `http://127.0.0.1:${gh.ports.http}`;
const identity = demoIdentityHeader("12345", "alice", true);
const headers = { "x-rh-identity": identity, "content-type": "application/json" };
const production = gh.demo!.workspaces["production"]!;
const patchOperators = gh.demo!.groups["patch-operators"]!;

async function measure(name: string, method: string, url: string, body?: unknown): Promise<number> {
  const run = async () => {
    const res = await fetch(base + url, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
  };
  for (let i = 0; i < 100; i++) await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(44)} p50 ${ms(pct(times, 50)).padStart(9)}  p99 ${ms(pct(times, 99)).padStart(9)}  (${requests} sequential)`);
  return pct(times, 50);
}

const explain = (subject: object, resource: object) => ({ subject, permission: "patch_system_edit", resource });
const baseline = await measure("baseline GET /workspaces/?limit=10", "GET", "/api/rbac/v2/workspaces/?limit=10");
const allowed = await measure("explain carol on Production (allowed)", "POST", "/api/rbac/v2/access:explain/", explain({ type: "user", id: "carol" }, { type: "workspace", id: production }));
const denied = await measure("explain carol on the tenant (denied)", "POST", "/api/rbac/v2/access:explain/", explain({ type: "user", id: "carol" }, { type: "tenant" }));
const group = await measure("explain group Patch operators (allowed)", "POST", "/api/rbac/v2/access:explain/", explain({ type: "group", id: patchOperators }, { type: "workspace", id: production }));
console.log(`explain / baseline median ratio: allowed ${(allowed / baseline).toFixed(2)}x, denied ${(denied / baseline).toFixed(2)}x, group ${(group / baseline).toFixed(2)}x`);

const executablePath = process.env["CHROMIUM_PATH"] ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
if (executablePath) {
  const profile = mkdtempSync(path.join(tmpdir(), "console-bench-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  // Signed in as alice for this tab (what the sign-in form stores).
  const credential = JSON.stringify({ kind: "identity", orgId: "12345", userId: "alice", orgAdmin: true });
  await context.addInitScript({ content: `sessionStorage.setItem("gatehouse.console.credential", ${JSON.stringify(credential)});` });
  const times: number[] = [];
  for (let i = 0; i < renders + 2; i++) {
    const page = await context.newPage();
    const t = performance.now();
    await page.goto(`${base}/console/#/explorer`);
    await page.getByRole("button", { name: "Explain" }).waitFor();
    if (i >= 2) times.push(performance.now() - t); // the first two warm the server and the HTTP cache
    await page.close();
  }
  times.sort((a, b) => a - b);
  console.log(`explorer first render (navigation → form ready, data loaded): median ${ms(pct(times, 50))}, max ${ms(times[times.length - 1]!)} (${renders} runs)`);

  // Click to answer. Each sample clears the previous answer first, so the wait is for this one.
  const page = await context.newPage();
  const summary = (name: string, samples: number[]) => {
    samples.sort((a, b) => a - b);
    console.log(`${name.padEnd(44)} p50 ${ms(pct(samples, 50)).padStart(9)}  p90 ${ms(pct(samples, 90)).padStart(9)}  (${samples.length} clicks)`);
    return pct(samples, 50);
  };
  await page.goto(`${base}/console/#/explorer`);
  await page.getByRole("button", { name: "Explain", exact: true }).waitFor();
  await page.getByLabel("Subject (user or group)").fill("user: carol");
  await page.getByLabel("Permission", { exact: true }).fill("patch_system_edit");
  await page.getByLabel("Target").selectOption(`workspace:${production}`);
  const clickExplain: number[] = [];
  const fetchExplain: number[] = [];
  const body = JSON.stringify(explain({ type: "user", id: "carol" }, { type: "workspace", id: production }));
  for (let i = 0; i < clicks + 2; i++) {
    await page.locator("#explain-result").evaluate((el) => el.replaceChildren());
    const t = performance.now();
    await page.getByRole("button", { name: "Explain", exact: true }).click();
    await page.locator("#explain-result .verdict").waitFor();
    const clicked = performance.now() - t;
    // The same request from the page, without rendering: the baseline of this run.
    const fetched = await page.evaluate(
      async ([identity, json]) => {
        const t0 = performance.now();
        const res = await fetch("/api/rbac/v2/access:explain/", { method: "POST", headers: { "content-type": "application/json", "x-rh-identity": identity! }, body: json! });
        await res.text();
        return performance.now() - t0;
      },
      [identity, body],
    );
    if (i >= 2) {
      clickExplain.push(clicked);
      fetchExplain.push(fetched);
    }
  }
  const explainClick = summary("click Explain → verdict shown", clickExplain);
  const explainFetch = summary("the explain request alone, from the page", fetchExplain);
  console.log(`click / request median ratio: ${(explainClick / explainFetch).toFixed(2)}x`);

  const staging = gh.demo!.workspaces["staging"]!;
  const grants: number[] = [];
  const revokes: number[] = [];
  await page.goto(`${base}/console/#/tree?workspace=${staging}`);
  for (let i = 0; i < clicks; i++) {
    const detail = page.locator("#node-detail");
    await detail.getByLabel("Group", { exact: true }).selectOption({ label: "Viewers" });
    await detail.getByLabel("Role", { exact: true }).selectOption({ label: "Patch administrator" });
    let t = performance.now();
    await detail.getByRole("button", { name: "Grant" }).click();
    await page.getByRole("button", { name: "Revoke Patch administrator from group Viewers" }).waitFor();
    grants.push(performance.now() - t);
    t = performance.now();
    await page.getByRole("button", { name: "Revoke Patch administrator from group Viewers" }).click();
    await page.getByText("Revoked Patch administrator from group Viewers.").waitFor();
    revokes.push(performance.now() - t);
  }
  summary("click Grant → tree redrawn with the binding", grants);
  summary("click Revoke → tree redrawn without it", revokes);
  await page.close();
  await context.close();
  rmSync(profile, { recursive: true, force: true });
} else {
  console.log("Chromium not found: first-render measurement skipped");
}
await gh.stop();
