// A React front end built with @project-kessel/react-kessel-access-check@0.5.7 in real Chromium,
// given ONE base URL (its own origin): fetchDefaultWorkspace (/api/rbac/v2/) and useSelfAccessCheck,
// single and bulk (/api/kessel/v1beta2/checkself, checkselfbulk), answered as the demo organisation's
// grants say. Twice: at the all-in-one server's origin (the management API's port, which serves the
// engine's checks too), and at a proxy that routes by the public route table the Ingress is
// rendered from (/api/kessel/ to the engine's own HTTP port, the rest to the management API).
//
// The page (test/kessel-sdk-page/, bundled by Vite) is handed to the browser at the origin under
// test, with the console's Content-Security-Policy, so its calls are same-origin and the policy is
// the one a page of the console would have. The SDK sends the browser's cookies (credentials:
// 'include') and no header of its own; in front of the service, the gateway turns the session into
// an identity header: here the browser context adds `x-rh-identity` to every request, as that
// gateway does, and each answer depends on whose it is.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSilentLogger } from "@gatehouse/telemetry";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";
import { browserRunnable, chromiumPath, LAUNCH_FLAGS } from "./support/chromium.js";
import { loadRouteTable, startOriginProxy, type OriginProxy } from "./support/origin-proxy.js";

const PAGE_SOURCE = fileURLToPath(new URL("./kessel-sdk-page/", import.meta.url));
const PAGE_PATH = "/kessel-sdk-page/";
const SDK_VERSION = "0.5.7";

interface Shown {
  "default-workspace": { id: string } | { error: number };
  single?: { allowed?: boolean; error?: number };
  bulk?: { items?: { id: string; relation: string; allowed: boolean }[]; error?: number };
}

describe.runIf(browserRunnable)("@project-kessel/react-kessel-access-check at one origin, in Chromium", () => {
  let gh: RunningGatehouse;
  let proxy: OriginProxy;
  let browser: Browser;
  let bundle: string;
  let csp: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const installed = JSON.parse(readFileSync(fileURLToPath(import.meta.resolve("@project-kessel/react-kessel-access-check/package.json")), "utf8")) as { version: string };
    expect(installed.version).toBe(SDK_VERSION);
    bundle = mkdtempSync(path.join(tmpdir(), "kessel-sdk-page-"));
    await build({ root: PAGE_SOURCE, base: "./", configFile: false, logLevel: "warn", build: { outDir: bundle, emptyOutDir: true, target: "es2022", modulePreload: { polyfill: false } } });
    gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: true }, createSilentLogger());
    proxy = await startOriginProxy(await loadRouteTable(), { "management-api/http": gh.ports.http, "authz-engine/http": gh.ports.metrics });
    // The policy the management API sends with the console's pages.
    csp = (await fetch(`http://127.0.0.1:${gh.ports.http}/console/`)).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("connect-src 'self'");
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: LAUNCH_FLAGS });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await proxy?.close();
    await gh?.stop();
    if (bundle) rmSync(bundle, { recursive: true, force: true });
  });

  const ids = () => gh.demo!.workspaces as Record<"default" | "production" | "production-eu" | "staging", string>;
  const bulkItems = () => [
    { id: ids().production, relation: "patch_system_edit" },
    { id: ids().staging, relation: "patch_system_edit" },
    { id: ids()["production-eu"], relation: "patch_system_edit" },
    { id: ids().default, relation: "advisor_disable_recommendations_edit" },
  ];

  /** Opens the page at `origin` as `user` (null: no identity) and returns what it shows once every answer settled. */
  async function open(origin: string, user: string | null): Promise<Shown> {
    const context = await browser.newContext(user ? { extraHTTPHeaders: { "x-rh-identity": demoIdentityHeader(gh.demo!.orgId, user, user === "alice") } } : {});
    contexts.push(context);
    // No deadline of the browser's own: waits end on events, and vitest's bound catches a hang.
    context.setDefaultTimeout(0);
    const foreign: string[] = [];
    context.on("request", (request) => {
      if (new URL(request.url()).origin !== origin) foreign.push(request.url());
    });
    // The bundle, served at the origin under test (only the page's own files; everything else reaches the server).
    await context.route(`${origin}${PAGE_PATH}**`, (route) => {
      const file = new URL(route.request().url()).pathname.slice(PAGE_PATH.length) || "index.html";
      const type = file.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8";
      return route.fulfill({ status: 200, headers: { "content-type": type, "content-security-policy": csp }, body: readFileSync(path.join(bundle, path.normalize(file))) });
    });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on("pageerror", (error) => failures.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/i.test(message.text())) failures.push(message.text());
    });
    await page.goto(`${origin}${PAGE_PATH}?relation=advisor_disable_recommendations_edit&bulk=${encodeURIComponent(JSON.stringify(bulkItems()))}`);
    await page.locator("#default-workspace[data-state=done]").waitFor();
    const expected = ["#bulk"];
    if ((await page.locator("#default-workspace").textContent())?.includes('"id"')) expected.push("#single");
    for (const selector of expected) await page.locator(`${selector}[data-state=done]`).waitFor();
    const shown: Record<string, unknown> = {};
    for (const element of await page.locator("pre").all()) shown[(await element.getAttribute("id"))!] = JSON.parse((await element.textContent()) ?? "null");
    expect(failures).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
    return shown as unknown as Shown;
  }

  for (const [label, originOf] of [
    ["the all-in-one server's origin", () => `http://127.0.0.1:${gh.ports.http}`],
    ["the route table's proxy (as the Ingress routes)", () => `http://127.0.0.1:${proxy.port}`],
  ] as const) {
    describe(label, () => {
      it("bob: the default workspace, and his legacy advisor grant there; not patch editing", async () => {
        const shown = await open(originOf(), "bob");
        expect(shown["default-workspace"]).toEqual({ id: ids().default });
        expect(shown.single).toEqual({ allowed: true });
        expect(shown.bulk?.items?.map((i) => i.allowed)).toEqual([false, false, false, true]);
        expect(shown.bulk?.items?.map((i) => i.id)).toEqual(bulkItems().map((i) => i.id));
      });

      it("carol: patch editing in Production and below, not in Staging, no advisor switch", async () => {
        const shown = await open(originOf(), "carol");
        expect(shown["default-workspace"]).toEqual({ id: ids().default });
        expect(shown.single).toEqual({ allowed: false });
        expect(shown.bulk?.items).toEqual(bulkItems().map((item, i) => ({ ...item, allowed: [true, false, true, false][i] })));
      });

      it("dave: the default workspace, and nothing he was not granted", async () => {
        const shown = await open(originOf(), "dave");
        expect(shown["default-workspace"]).toEqual({ id: ids().default });
        expect(shown.single).toEqual({ allowed: false });
        expect(shown.bulk?.items?.map((i) => i.allowed)).toEqual([false, false, false, false]);
      });

      it("without an identity: 401 from both the workspace lookup and the checks", async () => {
        const shown = await open(originOf(), null);
        expect(shown["default-workspace"]).toEqual({ error: 401 });
        expect(shown.bulk).toEqual({ error: 401 });
      });
    });
  }

  it("through the proxy, the checks went to the engine's own HTTP port and the workspace lookups to the management API", () => {
    const backends = new Map(proxy.served.map((line) => line.split(" → ") as [string, string]));
    expect(backends.get("/api/kessel/v1beta2/checkself")).toBe("authz-engine/http");
    expect(backends.get("/api/kessel/v1beta2/checkselfbulk")).toBe("authz-engine/http");
    expect(backends.get("/api/rbac/v2/workspaces/")).toBe("management-api/http");
    expect(proxy.served.filter((line) => line.startsWith("/api/kessel/")).every((line) => line.endsWith("authz-engine/http"))).toBe(true);
  });
});
