import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOidcVerifier } from "@gatehouse/auth";
import { parseSchema } from "@gatehouse/evaluator";
import { openStore, type Store } from "@gatehouse/store";
import { cachedProbe, createBoundedHttpServer, createLogger, createMetrics, drainHttpServer, httpTracing, type Logger, metricsContentType } from "@gatehouse/telemetry";
import express, { type Express, type RequestHandler } from "express";
import { Authorizer } from "./authz/authorizer.js";
import { loadRoleConfiguration, type RoleConfiguration } from "./authz/role-config.js";
import { defaultAssetTypes } from "@gatehouse/rbac";
import { boundedImpact, storeConfigImpact } from "./authz/config-impact.js";
import { applyRoleConfiguration, describeElement, impactToken, type ReloadResult } from "./authz/reload.js";
import type { Services } from "./commands/services.js";
import { DEFAULT_CONFIG, type ManagementApiConfig } from "./config.js";
import { startExpirySweep, type ExpirySweep } from "./expiry-sweep.js";
import { problemMiddleware } from "./http/errors.js";
import { identityMiddleware } from "./http/identity.js";
import { organisationProbe } from "./http/organisation-probe.js";
import { readCache } from "./http/read-cache.js";
import { isLoopbackAddress } from "./http/loopback.js";
import { v1MethodNotAllowed, v2MethodNotAllowed } from "./http/method-not-allowed.js";
import { ApiError } from "./http/problem.js";
import { requestLogging } from "./http/request-log.js";
import { rejectMalformedText, requireJsonBody, requireUtf8Body } from "./http/validate.js";
import { buildOpenApiDocument } from "./openapi.js";
import { CONSOLE_PREFIX, consoleStatic, defaultConsoleDir } from "./http/console-static.js";
import { accessRoutes } from "./routes/access.js";
import { groupRoutes, principalRoutes } from "./routes/groups.js";
import { roleBindingRoutes } from "./routes/role-bindings.js";
import { roleRoutes } from "./routes/roles.js";
import { v1Routes } from "./routes/v1.js";
import { v1PermissionRoutes, v1PrincipalListRoutes, v1PublicRoutes } from "./routes/v1-catalogue.js";
import { v1RoleWriteRoutes } from "./routes/v1-role-writes.js";
import { crossAccountRoutes } from "./routes/cross-account.js";
import { orgModeRoutes } from "./routes/org-mode.js";
import { createParityUpkeep } from "./commands/parity-upkeep.js";
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
  /** Built console to serve under /console/; default: @gatehouse/console's dist/ when built; null: none. */
  consoleDir?: string | null;
  /**
   * The time (epoch ms) against which answers (checks, explain, parity) judge time-bound grants:
   * give it the store's clock (`StoreConfig.now`). Default `Date.now`. Tests move it past an
   * expiry instead of waiting for the machine's clock.
   */
  now?: () => number;
  /**
   * Other services' request listeners served on this port ahead of the API, each for the paths
   * under its prefix (the all-in-one mounts the engine's HTTP/JSON checks at `/api/kessel/`, so a
   * browser reaches both at one origin). The request is handed over untouched, headers and body,
   * so the mounted service authenticates the caller itself.
   */
  mounts?: readonly HttpMount[];
}

export interface HttpMount {
  /** Path prefix, ending in `/`. */
  prefix: string;
  listener: (request: IncomingMessage, response: ServerResponse) => void;
}

export interface ManagementApiServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
  /**
   * Reloads the role configuration (SIGHUP and `POST /role-config/reload` call this); a change that
   * takes access away is refused (ReloadImpactError) unless `accept` is its impact's token.
   */
  reloadRoleConfiguration(accept?: string): Promise<ReloadResult>;
  /**
   * Runs the expiry sweep now (expired grants, cross-account requests ending or starting) and
   * resolves once the answers reflect it; the timer does the same every interval.
   */
  sweepNow(): Promise<void>;
  readonly app: Express;
}

export function buildServer(partial: Partial<ManagementApiConfig> = {}, options: BuildServerOptions = {}): ManagementApiServer {
  // With tokens configured, an unverified header is not proof of identity unless asked for.
  const headerDefault = partial.oidc && partial.trustIdentityHeader === undefined ? { trustIdentityHeader: false } : {};
  const config: ManagementApiConfig = { ...DEFAULT_CONFIG, ...headerDefault, ...partial };
  const logger = options.logger ?? createLogger({ name: "management-api", ...(config.logLevel ? { level: config.logLevel } : {}) });
  const metrics = createMetrics({ prefix: "gatehouse_management_" });
  const storeUp = metrics.gauge("store_up", "1 when the last readiness probe reached the store, else 0.");
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Query strings are parsed flat (`a.b` stays a key), repeated keys become arrays.
  app.set("query parser", "simple");

  let services: Services | null = null;
  let server: Server | null = null;
  let ownedStore: Store | null = null;
  let sweep: ExpirySweep | null = null;
  let ready = false;
  let started = false;

  // First, so that every answer (probes and errors included) carries the request id.
  const [logRequest, observeRequest] = requestLogging(logger, metrics);
  // Tracing before logging, so the request's log lines carry its trace id.
  app.use(httpTracing() as unknown as RequestHandler);
  app.use(logRequest!);
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
  // Which role configuration is active (also the gatehouse_management_role_config_info metric).
  let activeConfig: RoleConfiguration | null = null;
  const configInfo = metrics.gauge("role_config_info", "1 for the active role configuration, by its content hash.", ["hash"]);
  const configLoaded = metrics.gauge("role_config_loaded_timestamp_seconds", "When the active role configuration was loaded (Unix seconds).");
  function publishIdentity(config: RoleConfiguration): void {
    activeConfig = config;
    configInfo.reset();
    configInfo.set({ hash: config.identity.hash }, 1);
    configLoaded.set(config.identity.loadedAt.getTime() / 1000);
  }
  app.get("/role-config", (_req, res) => {
    if (!activeConfig) {
      res.status(503).json({ status: "starting" });
      return;
    }
    const { hash, loadedAt } = activeConfig.identity;
    res.json({ hash, loaded_at: loadedAt.toISOString(), system_roles: activeConfig.systemRoles.length });
  });
  // Reload: the same directory (or built-in environment), checked and applied atomically; one at a time.
  let reloading: Promise<ReloadResult> | null = null;
  async function reloadRoleConfiguration(accept?: string): Promise<ReloadResult> {
    if (!services || !activeConfig) throw new ApiError(503, [{ message: "The service is starting.", field: "detail" }], { headers: { "retry-after": "1" } });
    const running = activeConfig;
    const current = services;
    const started = performance.now();
    const next = await loadRoleConfiguration(config.env, config.roleConfigDir);
    const guard = { running, catalog: defaultAssetTypes(), domain: config.domain, ...(accept ? { accept } : {}) };
    const result = await applyRoleConfiguration(current.store, { schemaAst: running.schemaAst, hash: running.identity.hash }, next, guard);
    // The same files as running: the graph, catalogue and identity (loaded_at) stay as they are.
    if (next.identity.hash !== running.identity.hash) {
      await current.authz.replaceModel(next.model);
      current.catalogue = next.catalogue;
      publishIdentity(next);
    }
    logger.info(
      {
        hash: result.hash,
        dir: result.dir,
        changed: result.changed,
        revision: result.revision,
        added: result.diff.added.length,
        removed: result.diff.removed.length,
        seeding: result.seeding,
        ms: Math.round(performance.now() - started),
      },
      "role configuration reloaded",
    );
    return result;
  }
  // One reload at a time: a call while one runs gets that one's answer.
  const reload = (accept?: string): Promise<ReloadResult> => {
    reloading ??= reloadRoleConfiguration(accept).finally(() => (reloading = null));
    return reloading;
  };
  /** The impact the files on disk would have if reloaded now, and the token that accepts it (nothing is changed). */
  async function pendingImpact() {
    if (!services || !activeConfig) throw new ApiError(503, [{ message: "The service is starting.", field: "detail" }], { headers: { "retry-after": "1" } });
    const running = activeConfig;
    const next = await loadRoleConfiguration(config.env, config.roleConfigDir);
    const { impact, digest } = await storeConfigImpact(services.store, running, next, defaultAssetTypes(), config.domain);
    return {
      running: running.identity.hash,
      pending: next.identity.hash,
      changed: running.identity.hash !== next.identity.hash,
      accept_token: impactToken(running.identity.hash, next.identity.hash, digest),
      impact: boundedImpact(impact),
    };
  }
  const localOnly = (req: express.Request, what: string): ApiError | undefined =>
    isLoopbackAddress(req.socket.remoteAddress) ? undefined : new ApiError(403, [{ message: `The role configuration ${what} from the local host only.`, field: "detail" }]);
  app.get("/role-config/impact", (req, res, next) => {
    const refused = localOnly(req, "impact can be read");
    if (refused) return next(refused);
    pendingImpact().then((r) => res.json(r), next);
  });
  app.post("/role-config/reload", (req, res, next) => {
    if (!isLoopbackAddress(req.socket.remoteAddress)) {
      next(new ApiError(403, [{ message: "The role configuration can be reloaded from the local host only (or by SIGHUP).", field: "detail" }]));
      return;
    }
    const accept = req.query.accept;
    if (accept !== undefined && (typeof accept !== "string" || !/^[0-9a-f]{32}$/.test(accept))) {
      next(new ApiError(400, [{ message: "accept must be the 32 hexadecimal characters of an impact's accept_token.", field: "accept" }]));
      return;
    }
    reload(accept).then((r) => {
      res.setHeader("x-gatehouse-consistency-token", services!.store.tokens.encode(r.revision));
      // The directory stays in the server's log: a path of the host is nobody else's business.
      res.json({
        hash: r.hash,
        changed: r.changed,
        loaded_at: r.loadedAt.toISOString(),
        revision: r.revision,
        added: r.diff.added.map(describeElement),
        removed: r.diff.removed.map(describeElement),
        seeding: r.seeding,
        ...(r.impact ? { impact: r.impact.summary } : {}),
      });
    }, next);
  });
  const parityUpkeep = createParityUpkeep(metrics);
  // Operators see and set an organisation's v1 / v2 mode (local host only, as the reload).
  app.use(
    "/admin",
    orgModeRoutes(() => services),
  );
  app.get(`${API_V2_PREFIX}/openapi.json`, (_req, res) => {
    res.json(buildOpenApiDocument());
  });
  app.use(API_V1_PREFIX, v1PublicRoutes(config));

  // A person opening the bare address in a browser lands on the console.
  // Only the bare root leads to the console: a query string is nobody's link and gets the 404.
  app.get("/", (req, res, next) => (req.originalUrl === "/" ? res.redirect(302, `${CONSOLE_PREFIX}/`) : next()));
  app.use(CONSOLE_PREFIX, consoleStatic(options.consoleDir === undefined ? defaultConsoleDir() : options.consoleDir));
  app.use(observeRequest!);
  app.use(requireJsonBody);
  app.use(express.json({ limit: config.maxBodyBytes, strict: false, type: ["application/json", "application/*+json"], verify: requireUtf8Body }));
  app.use(rejectMalformedText);

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
  app.use(
    API_V2_PREFIX,
    organisationProbe(() => services?.store ?? null, config.trustIdentityHeader),
    v2,
  );
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
        migrations: config.migrateOnStart === false ? "verify" : "apply",
        domain: config.domain,
        workspaceDepthLimit: config.workspaceMaxDepth,
      }));
    const roleConfiguration = options.roleConfiguration ?? (await loadRoleConfiguration(config.env, config.roleConfigDir));
    // Starting on other files than the recorded active configuration is a reload: the same checks
    // (a removal still in use refuses to start), the same single transaction.
    const recorded = await store.roleConfig.active();
    if (recorded && recorded.hash !== roleConfiguration.identity.hash) {
      const applied = await applyRoleConfiguration(store, { schemaAst: parseSchema(recorded.schemaZed), hash: recorded.hash }, roleConfiguration);
      logger.info({ hash: applied.hash, previous: recorded.hash, seeding: applied.seeding }, "role configuration changed since the last run; applied");
    } else if (roleConfiguration.systemRoles.length > 0) {
      const { value: seeded } = await store.roles.seedSystemRoles(roleConfiguration.systemRoles);
      logger.info({ created: seeded.created.length, updated: seeded.updated, unchanged: seeded.unchanged.length, unconfigured: seeded.unconfigured }, "system roles seeded");
    }
    publishIdentity(roleConfiguration);
    const authz = new Authorizer(store, roleConfiguration.model, logger, options.now ?? Date.now);
    await authz.start();
    sweep = startExpirySweep(store, config.expiredGrantSweepIntervalMs, logger);
    services = { store, authz, catalogue: roleConfiguration.catalogue, config, now: options.now ?? Date.now };
    services.parity = parityUpkeep.observe(services);
    storeAnswers = cachedProbe(() => store.feed.headRevision());
    identity = identityMiddleware(store, {
      trustIdentityHeader: config.trustIdentityHeader,
      systemUsers: config.systemUsers,
      ...(config.oidc ? { verifier: createOidcVerifier(config.oidc) } : {}),
    });
    if (config.readCacheBytes > 0) cache = readCache({ revision: () => authz.revision, maxBytes: config.readCacheBytes });
    v2.use(v2MethodNotAllowed, workspaceRoutes(services), roleRoutes(services), roleBindingRoutes(services), principalRoutes(services), accessRoutes(services));
    v1.use(
      v1MethodNotAllowed,
      groupRoutes(services),
      v1PrincipalListRoutes(services),
      principalRoutes(services),
      v1Routes(services),
      v1PermissionRoutes(services),
      v1RoleWriteRoutes(services),
      crossAccountRoutes(services),
    );
    const listening = createBoundedHttpServer(withMounts(app, options.mounts ?? []), config.http);
    listening.listen(config.port, config.host);
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
    // Readiness answers 503 from here on; requests in flight finish (bounded), idle keep-alive
    // connections close, and only then do the authorization graph and the store go.
    ready = false;
    storeAnswers = null;
    if (server) {
      const closing = server;
      server = null;
      logger.info({ timeoutMs: config.shutdownTimeoutMs }, "management API draining: no new requests, waiting for those in flight");
      if (!(await drainHttpServer(closing, config.shutdownTimeoutMs))) {
        logger.warn({ timeoutMs: config.shutdownTimeoutMs }, "requests still in flight at the shutdown deadline were cut off");
      }
    }
    await sweep?.stop();
    sweep = null;
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
    reloadRoleConfiguration: reload,
    async sweepNow() {
      if (!sweep || !services) throw new Error("The management API server is not running.");
      await sweep.runOnce();
      await services.authz.catchUp(await services.store.feed.headRevision(), config.readYourWritesTimeoutMs);
    },
  };
}

/** `app`, except for paths under a mount's prefix, which go to the mount (first match). */
function withMounts(app: Express, mounts: readonly HttpMount[]): (request: IncomingMessage, response: ServerResponse) => void {
  if (mounts.length === 0) return app;
  return (request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const mount = mounts.find((m) => path.startsWith(m.prefix));
    if (mount) mount.listener(request, response);
    else app(request, response);
  };
}
