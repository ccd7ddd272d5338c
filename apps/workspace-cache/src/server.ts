import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { type Cache, type CacheMetrics, type RedisCache, createMemoryCache, createRedisCache } from "@gatehouse/cache";
import { type Store, type StoreConfig, openStore } from "@gatehouse/store";
import {
  cachedProbe,
  createBoundedHttpServer,
  createLogger,
  createMetrics,
  DEFAULT_HTTP_LIMITS,
  drainHttpServer,
  httpRequestDuration,
  httpRequestLogger,
  httpTracing,
  metricsContentType,
  type HttpServerLimits,
  type Logger,
} from "@gatehouse/telemetry";
import { type AuthConfig, createAuthenticator } from "./authn.js";
import { WorkspaceCacheError } from "./errors.js";
import { problemHandler } from "./http/problem.js";
import { workspaceDirectoryFromStore } from "./store-directory.js";
import { workspaceRoutes } from "./http/routes.js";
import { type WorkspaceDirectory, createWorkspaceLookup } from "./workspaces.js";

export type CacheConfig = { kind: "memory"; maxEntries?: number } | { kind: "redis"; url: string; keyPrefix?: string; commandTimeoutMs?: number };

export interface WorkspaceCacheConfig {
  /** Listen port; 0 picks a free one (default 8001). */
  port?: number;
  host?: string;
  /** Default: in-process memory cache (the embedded default). */
  cache?: CacheConfig;
  /**
   * Source of truth for the built-in workspaces: a directory (e.g. `workspaceDirectoryFromStore`
   * over a store the caller owns), or the store's config, opened and closed by this server.
   */
  source: { directory: WorkspaceDirectory } | { store: StoreConfig };
  auth: AuthConfig;
  /** Deadline of a cache round trip before the store answers instead (default 100 ms). */
  cacheTimeoutMs?: number;
  /** Lifetime of a cached root/default pair (default 60 s): how stale a renamed workspace may be. */
  entryTtlMs?: number;
  logLevel?: string;
  /** Timeouts and the connection cap of the HTTP server (defaults: DEFAULT_HTTP_LIMITS). */
  http?: Partial<HttpServerLimits>;
  /** On stop, how long requests in flight may take to finish, ms (default 10 s). */
  shutdownTimeoutMs?: number;
  /** How long a readiness probe's answer about Redis and the store is reused, ms (default 1 s). */
  probeIntervalMs?: number;
}

export interface WorkspaceCacheServer {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
}

function openCache(config: CacheConfig | undefined): Cache | RedisCache {
  if (!config || config.kind === "memory") return createMemoryCache({ maxEntries: config?.maxEntries });
  if (config.kind === "redis") {
    return createRedisCache({ url: config.url, keyPrefix: config.keyPrefix ?? "gatehouse:workspace-cache:", commandTimeoutMs: config.commandTimeoutMs });
  }
  throw new WorkspaceCacheError("invalid-config", `Unknown cache kind '${(config as { kind: string }).kind}'.`);
}

export function buildServer(config: WorkspaceCacheConfig): WorkspaceCacheServer {
  const port = config.port ?? 8001;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new WorkspaceCacheError("invalid-config", `Invalid port ${String(port)}.`);
  if (!config.source || !("directory" in config.source || "store" in config.source)) {
    throw new WorkspaceCacheError("invalid-config", "A source is required: { directory } or { store: StoreConfig }.");
  }
  const logger = createLogger({ name: "workspace-cache", level: config.logLevel });
  const metrics = createMetrics({ prefix: "gatehouse_workspace_cache_" });
  const hits = metrics.counter("cache_hits_total", "Lookups answered from the cache", ["cache"]);
  const misses = metrics.counter("cache_misses_total", "Lookups not found in the cache", ["cache"]);
  const failures = metrics.counter("cache_failures_total", "Cache failures answered by the source instead", ["cache", "operation", "code"]);
  const cacheMetrics: CacheMetrics = {
    hit: (cache) => hits.inc({ cache }),
    miss: (cache) => misses.inc({ cache }),
    failure: (cache, operation, code) => {
      failures.inc({ cache, operation, code });
      logger.warn({ cache, operation, code }, "cache failure; answered from the source");
    },
  };

  const cache = openCache(config.cache);
  let ownedStore: Store | undefined;
  let directory: WorkspaceDirectory;
  if ("directory" in config.source) {
    directory = config.source.directory;
  } else {
    const storeConfig = config.source.store;
    // Opened lazily and once: a store that is down at start-up must not stop cached answers.
    let opening: Promise<WorkspaceDirectory> | undefined;
    const open = () => {
      opening ??= openStore(storeConfig).then((store) => ((ownedStore = store), workspaceDirectoryFromStore(store)));
      opening.catch(() => (opening = undefined));
      return opening;
    };
    directory = {
      builtInWorkspaces: async (orgId) => (await open()).builtInWorkspaces(orgId),
      watch: async (onChange) => (await open()).watch!(onChange),
      ping: async () => (await open()).ping!(),
    };
  }
  const lookup = createWorkspaceLookup({ cache, directory, metrics: cacheMetrics, cacheTimeoutMs: config.cacheTimeoutMs, entryTtlMs: config.entryTtlMs });
  const authenticator = createAuthenticator(config.auth);
  if (config.auth.mode === "disabled") logger.warn("authentication disabled: x-rh-rbac-org-id is trusted (local use only)");

  const duration = httpRequestDuration(metrics);

  const app = express();
  app.disable("x-powered-by");
  // Request id in and out, one log line per request (pino-http), one latency observation.
  app.use(httpTracing() as unknown as express.RequestHandler);
  app.use(httpRequestLogger(logger) as unknown as express.RequestHandler);
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      duration.labels(req.method, String(route), String(res.statusCode)).observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  });
  // Liveness: the process answers. Readiness: listening, not stopping, and able to answer from at
  // least one of the cache and the store. One of them down is "degraded" (still 200: uncached
  // organisations get 503 while the store is down, every answer costs a store read while Redis is).
  const dependencyUp = metrics.gauge("dependency_up", "1 when the last probe reached the dependency (cache: Redis or memory; source: the store), else 0.", ["dependency"]);
  const probeOptions = { ttlMs: config.probeIntervalMs ?? 1_000, timeoutMs: config.cacheTimeoutMs ?? 100 };
  const cacheAnswers = cachedProbe(() => cache.get("probe:readyz"), probeOptions);
  const ping = directory.ping?.bind(directory);
  const sourceAnswers = ping ? cachedProbe(ping, { ...probeOptions, timeoutMs: 2_000 }) : async () => true;
  const probeDependencies = async () => {
    const [cacheUp, sourceUp] = await Promise.all([cacheAnswers(), sourceAnswers()]);
    dependencyUp.set({ dependency: "cache" }, cacheUp ? 1 : 0);
    dependencyUp.set({ dependency: "source" }, sourceUp ? 1 : 0);
    return { cache: cacheUp ? "up" : "down", source: sourceUp ? "up" : "down" } as const;
  };
  let ready = false;
  const alive = (_req: unknown, res: express.Response): void => void res.json({ status: "ok" });
  app.get("/livez", alive);
  app.get("/healthz", alive);
  app.get("/readyz", async (_req, res) => {
    if (!ready) return void res.status(503).json({ status: "unavailable" });
    const dependencies = await probeDependencies();
    const up = [dependencies.cache, dependencies.source].filter((state) => state === "up").length;
    res.status(up === 0 ? 503 : 200).json({ status: up === 2 ? "ok" : up === 1 ? "degraded" : "unavailable", ...dependencies });
  });
  // Scrapes refresh the dependency gauges, so the degraded state shows without a readiness probe.
  app.get("/metrics", async (_req, res) => {
    await probeDependencies();
    res.type(metricsContentType).send(await metrics.render());
  });
  app.use(workspaceRoutes(lookup, authenticator));
  app.use((_req, _res, next) => next(new WorkspaceCacheError("invalid-request", "Only GET /api/rbac/v2/workspaces/?type=root|default is served here.")));
  app.use(problemHandler((err, req) => ((req as unknown as { log?: Logger }).log ?? logger).error({ err }, "request failed")));

  // Change notifications make a renamed workspace visible at once (the TTL is only the backstop).
  // Started in the background and retried: a store down at start-up must not stop the service.
  let watching: { stop(): Promise<void> } | undefined;
  let watchRetry: NodeJS.Timeout | undefined;
  let stopping = false;
  const startWatching = (): void => {
    if (!directory.watch) return;
    directory
      .watch((orgId, revision) => void lookup.invalidate(orgId, revision))
      .then(
        (handle) => (stopping ? void handle.stop() : (watching = handle)),
        (err: unknown) => {
          logger.warn({ err }, "cannot follow workspace changes yet; cached pairs expire after their TTL until then");
          if (!stopping) watchRetry = setTimeout(startWatching, 5_000).unref();
        },
      );
  };

  let server: Server | undefined;
  return {
    async start() {
      if (server) throw new WorkspaceCacheError("invalid-config", "The server is already started.");
      // Give Redis a moment to connect, but serve from the store if it does not: it is only a cache.
      if ("waitUntilReady" in cache) {
        await cache.waitUntilReady(2_000).catch((err: unknown) => logger.warn({ err }, "Redis not ready; serving from the store until it is"));
      }
      const listening = createBoundedHttpServer(app, { ...DEFAULT_HTTP_LIMITS, ...config.http });
      listening.listen(port, config.host ?? "0.0.0.0");
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once("listening", resolve);
        listening.once("error", reject);
      });
      const actual = (listening.address() as AddressInfo).port;
      ready = true;
      stopping = false;
      startWatching();
      logger.info({ port: actual, cache: cache.kind }, "workspace-cache listening");
      return { port: actual };
    },
    async stop() {
      const running = server;
      server = undefined;
      ready = false;
      stopping = true;
      clearTimeout(watchRetry);
      await watching?.stop();
      watching = undefined;
      // Requests in flight finish (bounded), idle keep-alive connections close.
      if (running) await drainHttpServer(running, config.shutdownTimeoutMs ?? 10_000);
      await cache.close();
      await ownedStore?.close();
    },
  };
}
