// Debian's Chromium for the browser tests, driven by playwright-core: where it is, and the flags of a
// headless run that reaches nothing but the pages under test.
import { existsSync } from "node:fs";

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
export const LAUNCH_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// Without a browser a suite cannot run; under CI it must (CI installs Chromium), so it fails there instead.
export const browserRunnable = CHROMIUM !== undefined || process.env["CI"] === "true";

/** The browser's path, or the error that says how to install it (for a suite's beforeAll). */
export function chromiumPath(): string {
  if (!CHROMIUM) throw new Error("Chromium is not installed (apt-get install -y chromium, or set CHROMIUM_PATH).");
  return CHROMIUM;
}
