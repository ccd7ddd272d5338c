// The web console in a real browser (Debian's Chromium driven by playwright-core) against the
// all-in-one server with the demo organisation: an administrator acts on answers and manages what
// grants access, a user asks about their own access, and every screen is checked at 1366 and 390 px
// (no horizontal overflow, axe-core: no serious or critical violation). Screenshots of each screen
// at both widths go to test-artifacts/console/ (not committed). One browser launch for the file.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSilentLogger } from "@gatehouse/telemetry";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatehouse, type RunningGatehouse } from "../src/start/all-in-one.js";
import { demoIdentityHeader } from "../src/start/banner.js";
import { browserRunnable, chromiumPath, LAUNCH_FLAGS } from "./support/chromium.js";

const consoleDir = fileURLToPath(new URL("../../console/", import.meta.url));
const artifacts = fileURLToPath(new URL("../test-artifacts/console/", import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WIDTHS = { desktop: { width: 1366, height: 900 }, phone: { width: 390, height: 844 } } as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

describe.runIf(browserRunnable)("console in Chromium against the demo stack", () => {
  let gh: RunningGatehouse;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let base: string;
  const foreign: string[] = [];

  beforeAll(async () => {
    // Always the current sources: the management API serves the console package's dist/.
    execFileSync(path.join(consoleDir, "node_modules/.bin/vite"), ["build", "--logLevel", "warn"], { cwd: consoleDir, stdio: "inherit" });
    mkdirSync(artifacts, { recursive: true });
    gh = await startGatehouse({ dataDir: null, host: "127.0.0.1", httpPort: 0, grpcPort: 0, cachePort: 0, metricsPort: 0, domain: "redhat", env: "stage", seedDemo: true }, createSilentLogger());
    base = `http://127.0.0.1:${gh.ports.http}`;
    profile = mkdtempSync(path.join(tmpdir(), "console-chromium-"));
    context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath(), headless: true, args: LAUNCH_FLAGS, viewport: WIDTHS.desktop });
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

  const signIn = async (org: string, user: string, admin: boolean) => {
    await page.getByLabel("Organisation id").fill(org);
    await page.getByLabel("User id").fill(user);
    await page.getByLabel("Org admin").setChecked(admin);
    await page.getByRole("button", { name: "Use this identity" }).click();
  };
  const signOut = async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  };
  const go = async (hash: string, heading: string | RegExp) => {
    // A fresh load each time: the same address with only a hash would not render the screen again.
    await page.goto("about:blank");
    await page.goto(`${base}/console/#${hash}`);
    await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    await page
      .locator(".status")
      .first()
      .filter({ hasNotText: /Loading|Computing/ })
      .waitFor({ state: "attached" });
  };
  const explainCase = async (subject: string, permission: string, target: string | RegExp) => {
    await page.getByLabel("Subject (user or group)").fill(subject);
    await page.getByLabel("Permission", { exact: true }).fill(permission);
    const option = await page.getByLabel("Target").locator("option").filter({ hasText: target }).first().getAttribute("value");
    await page.getByLabel("Target").selectOption(option!);
    await page.locator("#explain-result").evaluate((el) => el.replaceChildren());
    await page.getByRole("button", { name: "Explain", exact: true }).click();
    await page.locator("#explain-result .verdict").waitFor();
    return (await page.locator("#explain-result .verdict").textContent()) ?? "";
  };
  const noOverflow = () => page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  /** The text that sticks out on the right, to say what overflows. */
  const overflowing = () =>
    page.evaluate<string[]>(
      `(() => {
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node && out.length < 5; node = walker.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(node);
          const right = range.getBoundingClientRect().right;
          if (right > window.innerWidth + 1) out.push(node.parentElement.tagName.toLowerCase() + " '" + node.textContent.slice(0, 40) + "' → " + Math.round(right) + "px");
        }
        return out;
      })()`,
    );
  const axe = async (): Promise<AxeViolation[]> => {
    // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
    if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE);
    const result = (await page.evaluate("window.axe.run(document, { resultTypes: ['violations'] })")) as { violations: AxeViolation[] };
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  };

  it("signs in with nothing pre-filled, no administrator by default, and never creates a mistyped organisation", async () => {
    await page.goto(`${base}/console/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await expect(page.getByLabel("Organisation id").inputValue()).resolves.toBe("");
    await expect(page.getByLabel("Org admin").isChecked()).resolves.toBe(false);
    await signIn("12346", "alice", true);
    const error = page.locator(".field-error[data-field=org_id]");
    await error.waitFor();
    expect(await error.textContent()).toContain("No organisation has the id '12346'");
    await expect(page.getByLabel("Organisation id").getAttribute("aria-invalid")).resolves.toBe("true");
    expect(await gh.store.tenants.find("12346")).toBeUndefined();
    await signIn("12345", "alice", true);
    await page.getByRole("button", { name: "Explain", exact: true }).waitFor();
  });

  it("shows carol ALLOWED on Production as a named path, the raw tree only on demand", async () => {
    expect(await explainCase("user: carol", "patch_system_edit", /^\s*Production$/)).toBe("ALLOWED");
    const result = page.locator("#explain-result");
    const pathText = await result.getByRole("list", { name: "Access path" }).innerText();
    for (const step of ["carol", "Patch operators", "(Patch administrator)", "Production"]) expect(pathText).toContain(step);
    expect(await result.locator(".tree-view").count()).toBe(0); // not built until opened
    await result.getByText("Raw evaluation tree").click();
    await result.locator(".tree-view").waitFor();
  });

  it("says where the application checks against the target, and offers a fix with its preview for a denial", async () => {
    expect(await explainCase("user: carol", "patch_system_edit", "Root Workspace")).toBe("DENIED");
    const text = await page.locator("#explain-result").innerText();
    expect(text).toContain("bound at the Production workspace");
    expect(text).toContain("checks each resource in its own workspace (here the Root Workspace)");
    expect(text).not.toContain("checks at the Default Workspace");
    expect(await explainCase("user: bob", "content_sources_repository_edit", /^\s*Production$/)).toBe("DENIED");
    expect(await page.locator("#explain-result").innerText()).toContain("this application checks at the Default Workspace, not at the Production workspace");
  });

  it("fixes bob's lost grant from the parity page (one, then all), previews it, shows the calls, undoes it", async () => {
    await go("/parity", "Migration parity");
    await expect(page.locator("#parity-verdict").textContent()).resolves.toContain("Parity broken");
    const lost = page.locator("section", { has: page.getByRole("heading", { name: /Lost grants/ }) });
    expect(await lost.innerText()).toContain("advisor:disable-recommendations:write");
    await lost.getByRole("button", { name: "Fix bob's grant…" }).click();
    const fix = lost.locator(".fix").first();
    await fix.waitFor();
    const preview = await fix.innerText();
    // The narrowest fix: exactly the held permission, at the Root Workspace, for the group bob held it through.
    expect(preview).toContain('a new custom role "Advisor recommendation switches (legacy) (Root Workspace)" holding exactly advisor:disable-recommendations:write');
    expect(preview).toContain("to group Viewers on Root Workspace");
    expect(preview).toContain("No other permission");
    expect(preview).not.toContain("Advisor administrator");
    await fix.getByText("The API calls (2)").click();
    expect(await fix.getByLabel("curl command 2").textContent()).toMatch(/^curl -X POST '.*\/api\/rbac\/v2\/role-bindings:batchCreate\/' -H 'x-rh-identity: /);
    expect(await fix.getByLabel("CLI command 1").textContent()).toMatch(/^gatehouse api POST '\/api\/rbac\/v2\/roles\/' --url '.*' --org '12345' --user 'alice' --org-admin --data '\{"name"/);
    await fix.getByRole("button", { name: "Apply this fix" }).click();
    await page.getByRole("button", { name: "Undo" }).waitFor();
    await expect(page.locator("#parity-verdict").textContent()).resolves.toContain("Parity kept");
    await page.getByRole("button", { name: "Undo" }).click();
    await page.getByText("Fix undone").waitFor();
    await expect(page.locator("#parity-verdict").textContent()).resolves.toContain("Parity broken");

    await page.getByRole("button", { name: /Fix all \d+ lost grants/ }).click();
    await page.locator("#fix-all .fix").waitFor();
    await page
      .locator("#fix-all")
      .getByRole("button", { name: /Apply th/ })
      .click();
    await page.getByRole("button", { name: "Undo" }).waitFor();
    await expect(page.locator("#parity-verdict").textContent()).resolves.toContain("Parity kept");
  });

  it("grants and revokes a binding in the workspace tree, and the explorer's answer changes", async () => {
    const staging = gh.demo!.workspaces["staging"]!;
    const bobOnStaging = async () => {
      await go("/explorer", "Access explorer");
      return explainCase("user: bob", "patch_system_edit", /^\s*Staging$/);
    };
    expect(await bobOnStaging()).toBe("DENIED");
    await go(`/tree?workspace=${staging}`, "Workspace tree");
    const detail = page.locator("#node-detail");
    await detail.getByRole("heading", { name: "Staging", exact: true }).waitFor();
    // Members are shown with the group that holds a binding (Viewers' inherited one from the Default Workspace).
    expect(await detail.innerText()).toContain("members: bob");
    await detail.getByLabel("Group", { exact: true }).selectOption({ label: "Viewers" });
    await detail.getByLabel("Role", { exact: true }).selectOption({ label: "Patch administrator" });
    await detail.getByRole("button", { name: "Grant" }).click();
    await page.getByText("Granted.").waitFor();
    expect(await page.locator("#node-detail").innerText()).toContain("group Viewers holds Patch administrator");
    expect(await bobOnStaging()).toBe("ALLOWED");
    expect(await page.locator("#explain-result").getByRole("list", { name: "Access path" }).innerText()).toContain("Staging");

    await go(`/tree?workspace=${staging}`, "Workspace tree");
    await page.getByRole("button", { name: "Revoke Patch administrator from group Viewers" }).click();
    await page.getByText("Revoked Patch administrator from group Viewers.").waitFor();
    expect(await bobOnStaging()).toBe("DENIED");
  });

  it("creates, renames, moves and deletes a workspace (the API's error next to the field first), creates a group with a member and a custom role", async () => {
    const staging = gh.demo!.workspaces["staging"]!;
    await go(`/tree?workspace=${staging}`, "Workspace tree");
    const name = page.getByLabel("New workspace under this one");
    await name.fill("x".repeat(300));
    await page.getByRole("button", { name: "Create workspace" }).click();
    const nameError = page.locator(".ws-actions .field-error[data-field=name]").first();
    await nameError.waitFor();
    expect((await nameError.textContent())!.length).toBeLessThan(200);
    await name.fill("QA");
    await page.getByRole("button", { name: "Create workspace" }).click();
    await page.locator("#node-detail").getByRole("heading", { name: "QA", exact: true }).waitFor();
    expect(await page.locator(".ws-tree").innerText()).toContain("QA");
    // Rename, move under Production, delete: each through the API, the tree drawn again after each.
    const detail = page.locator("#node-detail");
    await detail.getByLabel("Name", { exact: true }).fill("QA Lab");
    await detail.getByRole("button", { name: "Rename" }).click();
    await detail.getByRole("heading", { name: "QA Lab", exact: true }).waitFor();
    await detail.getByLabel("Parent", { exact: true }).selectOption({ label: "\u00a0\u00a0\u00a0\u00a0Production" });
    await detail.getByRole("button", { name: "Move" }).click();
    await page.getByText("Saved.").waitFor();
    const qaLab = page.locator(".ws-tree li", { hasText: "QA Lab" });
    await expect(qaLab.getAttribute("class")).resolves.toBe("depth-3"); // root → default → Production → QA Lab
    await page.locator("#node-detail").getByRole("button", { name: "Delete QA Lab" }).click();
    await page.locator("#node-detail").getByRole("heading", { name: "Production", exact: true }).waitFor();
    expect(await page.locator(".ws-tree").innerText()).not.toContain("QA Lab");

    await go("/groups", "Groups");
    await page.getByLabel("Name").fill("g".repeat(200));
    await page.getByRole("button", { name: "Create group" }).click();
    await page.locator(".field-error[data-field=name]").waitFor();
    expect(await page.locator(".field-error[data-field=name]").textContent()).toContain("no more than 150 characters");
    await page.getByLabel("Name").fill("Auditors");
    await page.getByRole("button", { name: "Create group" }).click();
    await page.locator("#group-detail").getByRole("heading", { name: "Auditors" }).waitFor();
    await page.getByLabel("User name").fill("dave");
    await page.getByRole("button", { name: "Add member" }).click();
    await page.getByRole("button", { name: "Remove dave from Auditors" }).waitFor();

    await go("/roles", "Roles");
    await page.getByLabel("Name").fill("Recommendation switcher");
    await page.getByLabel("Permissions").fill("advisor:disable-recommendations:write\ninventory:hosts:read");
    await page.getByRole("button", { name: "Create role" }).click();
    const permissionsError = page.locator(".field-error[data-field=permissions]");
    await permissionsError.waitFor();
    expect(await permissionsError.textContent()).toContain("same scope");
    await page.getByLabel("Permissions").fill("advisor:disable-recommendations:write");
    await page.getByRole("button", { name: "Create role" }).click();
    await page.locator("#custom-roles").getByText("Recommendation switcher").waitFor();
  });

  it("lets dave ask why he is denied, about himself only", async () => {
    await signOut();
    await signIn("12345", "dave", false);
    await page.getByRole("heading", { name: "Not permitted" }).waitFor();
    await page.getByRole("link", { name: "Ask why you can't do something" }).click();
    await page.getByRole("heading", { name: "Why can't I …?" }).waitFor();
    await page.getByLabel("What I want to do (permission)").fill("advisor_disable_recommendations_edit");
    await page.getByRole("button", { name: "Why?" }).click();
    await page.locator("#self-result .verdict").waitFor();
    const answer = await page.locator("#self-result").innerText();
    expect(answer).toContain("DENIED");
    expect(answer).toContain("You (dave)");
    for (const other of ["bob", "carol", "alice", "Viewers"]) expect(answer).not.toContain(other);
    // The endpoint answers about the caller only: naming someone else is refused.
    const status = await page.evaluate(
      async (identity) =>
        (
          await fetch("/api/rbac/v2/access:explain-self/", {
            method: "POST",
            headers: { "content-type": "application/json", "x-rh-identity": identity },
            body: JSON.stringify({ subject: { type: "user", id: "carol" }, permission: "patch_system_edit", resource: { type: "tenant" } }),
          })
        ).status,
      demoIdentityHeader("12345", "dave", false),
    );
    expect(status).toBe(400);
  });

  it("fits 1366 and 390 px on every screen, with no serious or critical axe-core violation; screenshots of each", async () => {
    // As alice again, every screen with its content shown.
    await signOut();
    await signIn("12345", "alice", true);
    await page.getByRole("heading", { name: "Why can't I …?" }).waitFor(); // the screen signed out from
    const staging = gh.demo!.workspaces["staging"]!;
    const screens: { name: string; open: () => Promise<void> }[] = [
      {
        name: "explorer-denied-fix",
        open: async () => {
          await go("/explorer", "Access explorer");
          await explainCase("user: dave", "advisor_disable_recommendations_edit", "Root Workspace");
          await page.locator("#explain-result .calls summary").first().click();
          await page.locator("#explain-result .raw-tree summary").click();
          await page.locator("#explain-result .tree-view").waitFor();
        },
      },
      { name: "tree", open: () => go(`/tree?workspace=${staging}`, "Workspace tree").then(() => page.locator("#node-detail h2").waitFor()) },
      { name: "groups", open: () => go(`/groups?group=${gh.demo!.groups["viewers"]}`, "Groups").then(() => page.locator("#group-detail h2").waitFor()) },
      { name: "roles", open: () => go("/roles", "Roles") },
      {
        name: "parity",
        open: async () => {
          await go("/parity", "Migration parity");
          for (const d of await page.locator("details").all()) await d.evaluate((el) => el.setAttribute("open", ""));
        },
      },
      {
        name: "config-change",
        open: async () => {
          await go("/config-change", "Configuration change");
          // The demo runs on the files it started with: nothing pending, nobody gains or loses.
          await expect(page.locator("#change-h").textContent()).resolves.toBe("No pending change");
        },
      },
      {
        name: "playground",
        open: async () => {
          await go("/playground", "Playground");
          await page.getByRole("button", { name: "Compile" }).click();
          await page.locator("#playground-output").getByText("Compiled:").waitFor();
        },
      },
      {
        name: "self-service",
        open: async () => {
          await go("/me", "Why can't I …?");
          await page.getByLabel("What I want to do (permission)").fill("patch_system_edit");
          await page.getByRole("button", { name: "Why?" }).click();
          await page.locator("#self-result .verdict").waitFor();
        },
      },
    ];
    const failures: string[] = [];
    for (const [width, viewport] of Object.entries(WIDTHS)) {
      await page.setViewportSize(viewport);
      for (const screen of screens) {
        await screen.open();
        const overflow = await noOverflow();
        if (overflow > 0) failures.push(`${screen.name} at ${viewport.width}px overflows by ${overflow}px: ${(await overflowing()).join(", ")}`);
        for (const v of await axe()) failures.push(`${screen.name} at ${viewport.width}px: ${v.impact} ${v.id} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
        await page.screenshot({ path: path.join(artifacts, `${screen.name}-${width}.png`), fullPage: true });
      }
      // The sign-in form too.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      if ((await noOverflow()) > 0) failures.push(`sign-in at ${viewport.width}px overflows`);
      for (const v of await axe()) failures.push(`sign-in at ${viewport.width}px: ${v.impact} ${v.id}`);
      await page.screenshot({ path: path.join(artifacts, `sign-in-${width}.png`), fullPage: true });
      await signIn("12345", "alice", true);
      await page.getByRole("heading", { level: 1 }).filter({ hasNotText: "Sign in" }).waitFor();
    }
    expect(failures).toEqual([]);
    await page.setViewportSize(WIDTHS.desktop);
  });

  it("is keyboard-operable: the explorer answers from the keyboard alone", async () => {
    await go("/explorer", "Access explorer");
    await page.getByLabel("Subject (user or group)").focus();
    await page.keyboard.type("user: carol");
    await page.keyboard.press("Tab");
    await page.keyboard.type("patch_system_edit");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab"); // the target keeps its first option (the organisation)
    await page.keyboard.press("Enter");
    await page.locator("#explain-result .verdict").waitFor();
    await expect(page.locator("#explain-result .verdict").textContent()).resolves.toBe("DENIED");
  });

  it("made no request outside Gatehouse", () => {
    expect(foreign).toEqual([]);
  });
});
