import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler, type Request } from "express";
import { type RhIdentity, isAuthError, parseIdentityHeader } from "@gatehouse/auth";
import { type AuthzClient, isAuthzClientError } from "@gatehouse/client";
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
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
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
  const app = express();
  app.disable("x-powered-by");

  // List: Pattern 2. One StreamedListObjects for the accessible workspaces, then the app's own query.
  app.get("/api/inventory/v1/hosts", async (req, res) => {
    const { identity, userId } = caller(req);
    if (!authz.enabled) {
      // AUTHZ_ENABLED=false: development mode, every host of the organisation (the client makes no call).
      res.setHeader("x-authz", "disabled");
      res.json({ data: inventory.hostsIn(identity.orgId, "all") });
      return;
    }
    const filter = await authz.listWorkspaceIds({ permission: PERMISSIONS.hostList, subject: userId });
    res.json({ data: inventory.hostsIn(identity.orgId, new Set(filter.ids)) });
  });

  // Detail: a Check on the specific host; "not found" when denied, so ids do not leak.
  app.get("/api/inventory/v1/hosts/:id", async (req, res) => {
    const { identity, userId } = caller(req);
    const host = inventory.host(identity.orgId, String(req.params["id"]));
    const allowed =
      host !== undefined &&
      (!authz.enabled || (await authz.checkResource({ resource: { type: "host", reporter: "hbi", id: host.id }, permission: PERMISSIONS.hostView, subject: userId })));
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
      res.status(err.status).json({ detail: err.message });
    } else if (isAuthzClientError(err) && ["unavailable", "deadline-exceeded", "token-unavailable"].includes(err.code)) {
      // Fail closed: without an answer from the authorization service nothing is shown.
      res.status(503).json({ detail: "Authorization is temporarily unavailable." });
    } else {
      res.status(500).json({ detail: "Unexpected error." });
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
