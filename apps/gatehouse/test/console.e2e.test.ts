// The web console in a real browser (Debian's Chromium driven by playwright-core) against the
// all-in-one server with the demo organisation. Screenshots of each screen are written to
// test-artifacts/console/ (not committed). One browser launch for the whole file.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSilentLogger } from "@gatehouse/telemetry";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const LAUNCH_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const consoleDir = fileURLToPath(new URL("../../console/", import.meta.url));
const artifacts = fileURLToPath(new URL("../test-artifacts/console/", import.meta.url));

// Without a browser the suite cannot run; under CI it must (CI installs Chromium), so it fails there instead.
const runnable = CHROMIUM !== undefined || process.env["CI"] === "true";

describe.runIf(runnable)("console in Chromium against the demo stack", () => {
  let gh: RunningGatehouse;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let base: string;
  const foreign: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error("Chromium is not installed (apt-get install -y chromium, or set CHROMIUM_PATH).");
    // Always the current sources: the management API serves the console package's dist/.
    execFileSync(path.join(consoleDir, "node_modules/.bin/vite"), ["build", "--logLevel", "warn"], { cwd: consoleDir, stdio: "inherit" });
    mkdirSync(artifacts, { recursive: true });
    gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: true }, createSilentLogger());
    base = `http://127.0.0.1:${gh.ports.http}`;
    profile = mkdtempSync(path.join(tmpdir(), "console-chromium-"));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: LAUNCH_FLAGS, viewport: { width: 1280, height: 900 } });
    page = context.pages()[0] ?? (await context.newPage());
    // The console talks to Gatehouse only: every other request is recorded (and asserted empty at the end).
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.protocol !== "data:" && url.origin !== base) foreign.push(request.url());
    });
  });
  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await gh?.stop();
  });

  const signIn = async (user: string, admin: boolean) => {
    await page.getByLabel("Organisation id").fill("12345");
    await page.getByLabel("User id").fill(user);
    await page.getByLabel("Org admin").setChecked(admin);
    await page.getByRole("button", { name: "Use this identity" }).click();
  };
  const explainCase = async (subject: string, permission: string, target: string) => {
    await page.getByLabel("Subject (user or group)").fill(subject);
    await page.getByLabel("Permission", { exact: true }).fill(permission);
    await page.getByLabel("Target").selectOption({ label: target });
    await page.getByRole("button", { name: "Explain" }).click();
    await page.locator("#result-heading").waitFor();
  };

  it("asks for credentials, then shows the explorer first", async () => {
    const started = Date.now();
    await page.goto(`${base}/console/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await signIn("alice", true);
    await page.getByRole("button", { name: "Explain" }).waitFor();
    console.log(`explorer rendered ${Date.now() - started} ms after navigation (incl. sign-in)`);
    await expect(page.getByRole("heading", { name: "Access explorer" }).isVisible()).resolves.toBe(true);
  });

  it("shows carol ALLOWED for patch_system_edit on Production with the path", async () => {
    await explainCase("user: carol", "patch_system_edit", "\u00a0\u00a0\u00a0\u00a0Production");
    const result = page.locator("#explain-result");
    await expect(result.locator(".verdict").textContent()).resolves.toBe("ALLOWED");
    const path = await result.getByRole("list", { name: "Access path" }).innerText();
    expect(path).toContain("group Patch operators");
    expect(path).toContain("role binding (Patch administrator)");
    expect(path).toContain("workspace Production");
    expect(await result.innerText()).toMatch(/Evaluated at revision \d+/);
    await shot("1-explorer-allowed");
  });

  it("shows carol DENIED at the Root Workspace with the level explanation", async () => {
    await explainCase("user: carol", "patch_system_edit", "Root Workspace");
    const result = page.locator("#explain-result");
    await expect(result.locator(".verdict").textContent()).resolves.toBe("DENIED");
    const text = await result.innerText();
    expect(text).toContain("bound at the Production workspace");
    expect(text).toContain("this application checks at the Default Workspace");
    expect(text).toContain("Pattern 2");
    expect(text).toContain("What would grant it");
    await shot("2-explorer-denied");
  });

  it("shows inherited bindings in the workspace tree", async () => {
    await page.getByRole("link", { name: "Workspace tree" }).click();
    await page.getByRole("button", { name: /Production EU/ }).click();
    const detail = page.locator("#node-detail");
    await detail.getByRole("heading", { name: "Production EU" }).waitFor();
    const text = await detail.innerText();
    expect(text).toMatch(/Inherited role bindings \([1-9]/);
    expect(text).toContain("group Patch operators holds Patch administrator");
    expect(text).toContain("inherited from Production");
    await shot("3-tree");
  });

  it("lists the demo's mis-levelled grant on the parity page and opens it in the explorer", async () => {
    await page.getByRole("link", { name: "Migration parity" }).click();
    await page.getByRole("heading", { name: /Lost grants/ }).waitFor();
    const lost = page.locator("section", { has: page.getByRole("heading", { name: /Lost grants/ }) });
    const text = await lost.innerText();
    expect(text).toContain("advisor:disable-recommendations:write");
    expect(text).toContain("bound at Default Workspace, checked at Root Workspace");
    expect(await page.locator("svg.chart title").textContent()).toMatch(/Grants kept \d+, lost [1-9]/);
    await shot("4-parity");
    await lost.getByRole("link", { name: "Explain bob" }).first().click();
    await page.locator("#result-heading").waitFor();
    await expect(page.locator("#explain-result .verdict").textContent()).resolves.toBe("DENIED");
    expect(await page.locator("#explain-result").innerText()).toContain("this application checks at the Root Workspace");
  });

  it("compiles a schema and answers a check in the playground, in the browser", async () => {
    await page.getByRole("link", { name: "Playground" }).click();
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.getByRole("button", { name: "Compile" }).click();
    await expect(page.locator("#playground-output").innerText()).resolves.toContain("Compiled:");
    await page.getByRole("button", { name: "Check" }).click();
    await expect(page.locator("#playground-output .verdict").textContent()).resolves.toBe("ALLOWED");
    await page.getByLabel("Subject (type:id or type:id#relation)").fill("docs/user:ben");
    await page.getByRole("button", { name: "Explain" }).click();
    await expect(page.locator("#playground-output .verdict").textContent()).resolves.toBe("DENIED");
    expect(requests).toEqual([]); // evaluated in the page, no server round trip
    await shot("5-playground");
  });

  it("fits a phone-width screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("link", { name: "Access explorer" }).click();
    await page.getByRole("button", { name: "Explain" }).waitFor();
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await shot("6-explorer-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("does not let a user who is not an org admin use the explain endpoint", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn("dave", false);
    await page.getByRole("heading", { name: "Not permitted" }).waitFor();
    await shot("7-not-permitted");
    const status = await page.evaluate(
      async (identity) => {
        const res = await fetch("/api/rbac/v2/access:explain/", {
          method: "POST",
          headers: { "content-type": "application/json", "x-rh-identity": identity },
          body: JSON.stringify({ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "tenant" } }),
        });
        return res.status;
      },
      demoIdentityHeader("12345", "dave", false),
    );
    expect(status).toBe(403);
  });

  it("made no request outside Gatehouse", () => {
    expect(foreign).toEqual([]);
  });
});
