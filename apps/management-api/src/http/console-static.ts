import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import express, { type Router } from "express";
import { ApiError } from "./problem.js";

export const CONSOLE_PREFIX = "/console";

/** The built console (`@gatehouse/console`'s `dist/`), or null when it is not installed or not built. */
export function defaultConsoleDir(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve("@gatehouse/console/package.json");
    const dir = path.join(path.dirname(pkg), "dist");
    return existsSync(path.join(dir, "index.html")) ? dir : null;
  } catch {
    return null;
  }
}

// The page talks to this origin only: the policy makes any other network call fail in the browser.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/**
 * Serves the console's static files under /console/. The files hold no data: every screen reads
 * through the API with the caller's own credentials (x-rh-identity or a bearer token), so the same
 * authentication and authorization apply as for any other client.
 */
export function consoleStatic(dir: string | null): Router {
  const router = express.Router({ strict: true, caseSensitive: true });
  router.use((_req, res, next) => {
    res.setHeader("content-security-policy", CONTENT_SECURITY_POLICY);
    res.setHeader("x-content-type-options", "nosniff");
    res.setHeader("referrer-policy", "no-referrer");
    next();
  });
  router.get("/", (req, res, next) => {
    // `/console` → `/console/` so relative asset URLs resolve.
    if (!req.originalUrl.split("?")[0]!.endsWith("/")) return res.redirect(301, `${CONSOLE_PREFIX}/`);
    next();
  });
  if (dir === null) {
    router.use((_req, _res, next) => next(new ApiError(404, [{ message: "The console is not built (pnpm --filter @gatehouse/console build).", field: "detail" }])));
    return router;
  }
  router.use(
    express.static(dir, {
      index: "index.html",
      redirect: false,
      fallthrough: true,
      setHeaders: (res, file) => {
        // Hashed assets never change; index.html must be revalidated to pick up a new build.
        res.setHeader("cache-control", file.includes(`${path.sep}assets${path.sep}`) ? "public, max-age=31536000, immutable" : "no-cache");
      },
    }),
  );
  return router;
}
