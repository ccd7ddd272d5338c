import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOidcVerifier } from "@gatehouse/auth";
import { openStore, type Store } from "@gatehouse/store";
import { cachedProbe, createLogger, createMetrics, metricsContentType, type Logger } from "@gatehouse/telemetry";
import express, { type Express } from "express";
import { Authorizer } from "./authz/authorizer.js";
import { loadRoleConfiguration, type RoleConfiguration } from "./authz/role-config.js";
import type { Services } from "./commands/services.js";
import { DEFAULT_CONFIG, type ManagementApiConfig } from "./config.js";
import { problemMiddleware } from "./http/errors.js";
import { identityMiddleware } from "./http/identity.js";
import { readCache } from "./http/read-cache.js";
import { applyServerLimits } from "./http/server-limits.js";
import { ApiError } from "./http/problem.js";
import { requestLogging } from "./http/request-log.js";
import { rejectNulBytes, requireJsonBody } from "./http/validate.js";
import { buildOpenApiDocument } from "./openapi.js";
import { groupRoutes, principalRoutes } from "./routes/groups.js";
import { roleBindingRoutes } from "./routes/role-bindings.js";
import { roleRoutes } from "./routes/roles.js";
import { workspaceRoutes } from "./routes/workspaces.js";

export const API_V2_PREFIX = "/api/rbac/v2";
export const API_V1_PREFIX = "/api/rbac/v1";

export interface BuildServerOptions {
  /** Use this store (shared with other services) instead of opening one; it is not closed on stop. */
  store?: Store;
  /** Postgres schema for the store's tables (test isolation). */
  databaseSchema?: string;
  /** Schema, catalogue and system roles; default: @gatehouse/role-config for `config.env`. */
  roleConfiguration?: RoleConfiguration;
  logger?: Logger;
}

export interface ManagementApiServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
  readonly app: Express;
}

export function buildServer(partial: Partial<ManagementApiConfig> = {}, options: BuildServerOptions = {}): ManagementApiServer {
  // With tokens configured, an unverified header is not proof of identity unless asked for.
  const headerDefault = partial.oidc && partial.trustIdentityHeader === undefined ? { trustIdentityHeader: false } : {};
  const config: ManagementApiConfig = { ...DEFAULT_CONFIG, ...headerDefault, ...partial };
  const logger = options.logger ?? createLogger({ name: "management-api", ...(config.logLevel ? { level: config.logLevel } : {}) });
  const metrics = createMetrics({ prefix: "gatehouse_management_", processMetrics: false });
  const storeUp = metrics.gauge("store_up", "1 when the last readiness probe reached the store, else 0.");
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Query strings are parsed flat (`a.b` stays a key), repeated keys become arrays.
  app.set("query parser", "simple");

  let services: Services | null = null;
  let server: Server | null = null;
  let ownedStore: Store | null = null;
  let ready = false;
  let started = false;

  app.get("/livez", (_req, res) => {
    res.json({ status: "ok" });
  });
  // Ready = started, not stopping, and the store answers: every API call needs the database, so
  // a load balancer must stop sending traffic here while it is unreachable.
  let storeAnswers: (() => Promise<boolean>) | null = null;
  app.get("/readyz", (_req, res, next) => {
    if (!ready || !storeAnswers) {
      res.status(503).json({ status: "starting" });
      return;
    }
    storeAnswers().then((up) => {
      storeUp.set(up ? 1 : 0);
      res.status(up ? 200 : 503).json({ status: up ? "ok" : "store-unavailable" });
    }, next);
  });
  app.get("/metrics", (_req, res, next) => {
    metrics.render().then((text) => res.type(metricsContentType).send(text), next);
  });
  app.get(`${API_V2_PREFIX}/openapi.json`, (_req, res) => {
    res.json(buildOpenApiDocument());
  });

  app.use(requestLogging(logger, metrics));
  app.use(requireJsonBody);
  app.use(express.json({ limit: config.maxBodyBytes, strict: false, type: ["application/json", "application/*+json"] }));
  app.use(rejectNulBytes);

  // Routes are attached in start(), once the store and the authorization graph exist.
  let identity: ReturnType<typeof identityMiddleware> | null = null;
  let cache: ReturnType<typeof readCache> | null = null;
  const v2 = express.Router({ caseSensitive: true, strict: true });
  const v1 = express.Router({ caseSensitive: true, strict: true });
  for (const router of [v2, v1]) {
    router.use((req, res, next) => {
      if (!identity) next(new ApiError(503, [{ message: "The service is starting.", field: "detail" }], { headers: { "retry-after": "1" } }));
      else identity(req, res, next);
    });
    router.use((req, res, next) => (cache ? cache(req, res, next) : next()));
  }
  app.use(API_V2_PREFIX, v2);
  app.use(API_V1_PREFIX, v1);
  app.use((_req, _res, next) => next(new ApiError(404, [{ message: "Not found.", field: "detail" }])));
  app.use(problemMiddleware(logger));

  async function startServices(): Promise<{ port: number }> {
    const store =
      options.store ??
      (ownedStore = await openStore({
        ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
        ...(config.dataDir ? { dataDir: config.dataDir } : {}),
        ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
        domain: config.domain,
        workspaceDepthLimit: config.workspaceMaxDepth,
      }));
    const roleConfiguration = options.roleConfiguration ?? (await loadRoleConfiguration(config.env));
    if (roleConfiguration.systemRoles.length > 0) await store.roles.seedSystemRoles(roleConfiguration.systemRoles);
    const authz = new Authorizer(store, roleConfiguration.model, logger);
    await authz.start();
    services = { store, authz, catalogue: roleConfiguration.catalogue, config };
    storeAnswers = cachedProbe(() => store.feed.headRevision());
    identity = identityMiddleware(store, {
      trustIdentityHeader: config.trustIdentityHeader,
      systemUsers: config.systemUsers,
      ...(config.oidc ? { verifier: createOidcVerifier(config.oidc) } : {}),
    });
    if (config.readCacheBytes > 0) cache = readCache({ revision: () => authz.revision, maxBytes: config.readCacheBytes });
    v2.use(workspaceRoutes(services), roleRoutes(services), roleBindingRoutes(services), principalRoutes(services));
    v1.use(groupRoutes(services), principalRoutes(services));
    const listening = app.listen(config.port, config.host);
    applyServerLimits(listening, config.http);
    server = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once("listening", resolve);
      listening.once("error", reject);
    });
    ready = true;
    const port = (listening.address() as AddressInfo).port;
    logger.info({ port }, "management API listening");
    return { port };
  }

  async function stopAll(): Promise<void> {
    ready = false;
    storeAnswers = null;
    if (server) {
      const closing = server;
      server = null;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeAllConnections();
      });
    }
    await services?.authz.stop();
    services = null;
    identity = null;
    cache = null;
    if (ownedStore) await ownedStore.close();
    ownedStore = null;
  }

  return {
    app,
    async start() {
      if (started) throw new Error("The management API server was already started.");
      started = true;
      try {
        return await startServices();
      } catch (error) {
        // Leave nothing half-open behind a failed start.
        await stopAll();
        throw error;
      }
    },
    stop: stopAll,
  };
}
