import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type Request } from "express";
import { type RhIdentity, isAuthError, parseIdentityHeader } from "@gatehouse/auth";
import { type AuthzClient, isAuthzClientError } from "@gatehouse/client";
import { writeProblem } from "@gatehouse/problem";
import type { Inventory } from "./inventory.js";

/** The permissions this application checks (names from the schema). */
export const PERMISSIONS = {
  /** Pattern 2: contingent relation on workspaces, used as the host list filter. */
  hostList: "inventory_host_view",
  /** Pattern 1 detail check on the host itself. */
  hostView: "inventory_host_view",
  /** Pattern 3: saved views live implicitly in the Default Workspace. */
  savedViewList: "inventory_host_view",
} as const;

export interface HostInventoryConfig {
  port?: number;
  host?: string;
  authz: AuthzClient;
  inventory: Inventory;
  /** The workspace permission the host list filters by (default PERMISSIONS.hostList); the load test uses its measured relation. */
  listPermission?: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field = "detail",
  ) {
    super(message);
  }
}

export const MAX_PAGE_SIZE = 1000;

/** `limit` (1..1000, default 10) and `offset` (default 0) of a list request. */
function pageOf(req: Request): { limit: number; offset: number } {
  const read = (name: string, fallback: number, max: number): number => {
    const raw = req.query[name];
    if (raw === undefined) return fallback;
    const value = typeof raw === "string" && /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value <= max) || (name === "limit" && value < 1)) throw new HttpError(400, `${name} must be an integer from ${name === "limit" ? 1 : 0} to ${max}.`, name);
    return value;
  };
  return { limit: read("limit", 10, MAX_PAGE_SIZE), offset: read("offset", 0, 100_000_000) };
}

function caller(req: Request): { identity: RhIdentity; userId: string } {
  let identity: RhIdentity;
  try {
    identity = parseIdentityHeader(req.header("x-rh-identity") ?? "");
  } catch (err) {
    if (isAuthError(err)) throw new HttpError(401, err.message);
    throw err;
  }
  const userId = identity.userId;
  if (!userId) throw new HttpError(403, "The identity has no user id.");
  return { identity, userId };
}

export function buildServer(config: HostInventoryConfig): { start(): Promise<{ port: number }>; stop(): Promise<void> } {
  const { authz, inventory } = config;
  const listPermission = config.listPermission ?? PERMISSIONS.hostList;
  const app = express();
  app.disable("x-powered-by");

  // List: Pattern 2. One StreamedListObjects for the accessible workspaces, then the app's own SQL
  // query filtered by them, paged. `server-timing` tells the two steps apart (the load test reads it).
  app.get("/api/inventory/v1/hosts", async (req, res) => {
    const { identity, userId } = caller(req);
    const page = pageOf(req);
    const t0 = performance.now();
    let workspaceIds: readonly string[] | "all" = "all";
    if (authz.enabled) workspaceIds = (await authz.listWorkspaceIds({ permission: listPermission, subject: userId })).ids;
    // AUTHZ_ENABLED=false: development mode, every host of the organisation (the client makes no call).
    else res.setHeader("x-authz", "disabled");
    const t1 = performance.now();
    const { count, data } = await inventory.hostsIn(identity.orgId, workspaceIds, page);
    res.setHeader("server-timing", `authz;dur=${(t1 - t0).toFixed(1)}, sql;dur=${(performance.now() - t1).toFixed(1)}`);
    res.json({ meta: { count, ...page }, data });
  });

  // Detail: a Check on the specific host; "not found" when denied, so ids do not leak.
  app.get("/api/inventory/v1/hosts/:id", async (req, res) => {
    const { identity, userId } = caller(req);
    const host = await inventory.host(identity.orgId, String(req.params["id"]));
    const allowed =
      host !== undefined && (!authz.enabled || (await authz.checkResource({ resource: { type: "host", reporter: "hbi", id: host.id }, permission: PERMISSIONS.hostView, subject: userId })));
    if (!host || !allowed) throw new HttpError(404, "Host not found.");
    res.json(host);
  });

  // Saved views are not workspace-aware: Pattern 3, the Default Workspace is the check object.
  app.get("/api/inventory/v1/saved-views", async (req, res) => {
    const { identity, userId } = caller(req);
    const allowed = !authz.enabled || (await authz.checkDefaultWorkspace({ orgId: identity.orgId, permission: PERMISSIONS.savedViewList, subject: userId }));
    if (!allowed) throw new HttpError(403, "You do not have permission to view saved views.");
    res.json({ data: inventory.savedViews(identity.orgId) });
  });

  const errors: ErrorRequestHandler = (err, _req, res, _next) => {
    if (err instanceof HttpError) {
      writeProblem(res, err.status, [{ message: err.message, field: err.field }]);
    } else if (isAuthzClientError(err) && ["unavailable", "deadline-exceeded", "token-unavailable"].includes(err.code)) {
      // Fail closed: without an answer from the authorization service nothing is shown.
      writeProblem(res, 503, [{ message: "Authorization is temporarily unavailable.", field: "detail" }], { headers: { "retry-after": "1" } });
    } else {
      writeProblem(res, 500, [{ message: "Unexpected error.", field: "detail" }]);
    }
  };
  app.use(errors);

  let server: Server | undefined;
  return {
    async start() {
      const listening = app.listen(config.port ?? 8002, config.host ?? "0.0.0.0");
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once("listening", resolve);
        listening.once("error", reject);
      });
      return { port: (listening.address() as AddressInfo).port };
    },
    async stop() {
      const running = server;
      server = undefined;
      if (running) {
        running.closeAllConnections();
        await new Promise<void>((resolve) => running.close(() => resolve()));
      }
      authz.close();
    },
  };
}
