import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { buildServer as buildAuthzEngine, KESSEL_HTTP_PREFIX } from "@gatehouse/authz-engine";
import { buildServer as buildManagementApi } from "@gatehouse/management-api";
import { openStore, type Store } from "@gatehouse/store";
import { createLogger, type Logger } from "@gatehouse/telemetry";
import { buildServer as buildWorkspaceCache, workspaceDirectoryFromStore } from "@gatehouse/workspace-cache";
import { seedDemoOrg, type SeedResult } from "../demo/seed.js";
import type { StartConfig } from "./config.js";

export interface RunningGatehouse {
  store: Store;
  ports: { http: number; grpc: number; cache: number; metrics: number };
  demo: SeedResult | null;
  stop(): Promise<void>;
}

/** Turns a bind failure into the message a person needs (which port, what to do). */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(
    readonly service: string,
    readonly port: number,
    options?: ErrorOptions,
  ) {
    super(`Port ${port} (${service}) is already in use. Stop whatever holds it, or choose another port (see 'gatehouse start --help').`, options);
  }
}

async function bind<T>(service: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === "EADDRINUSE" || /EADDRINUSE|address already in use|No address added out of total/i.test(message)) {
      throw new PortInUseError(service, port, { cause: error });
    }
    throw error;
  }
}

/** Fails before anything is opened (above all the embedded database) when a port is taken. */
async function assertPortFree(service: string, host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", (error: NodeJS.ErrnoException) => reject(error.code === "EADDRINUSE" ? new PortInUseError(service, port, { cause: error }) : error));
    probe.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

export interface StartOptions {
  /**
   * The clock (epoch ms) by which the store judges a grant's expiry and the engine evaluates
   * expiring grants; default `Date.now`. Tests move their own instead of waiting.
   */
  now?: () => number;
}

/**
 * Starts management API, authz-engine and workspace-cache in one process over ONE store (PGlite
 * allows a single opener), seeding the demo organisation on first start.
 */
export async function startGatehouse(config: StartConfig, logger: Logger = createLogger({ name: "gatehouse" }), options: StartOptions = {}): Promise<RunningGatehouse> {
  await assertPortFree("management API", config.host, config.httpPort);
  await assertPortFree("authz-engine gRPC", config.host, config.grpcPort);
  await assertPortFree("workspace-cache", config.host, config.cachePort);
  await assertPortFree("authz-engine metrics", config.host, config.metricsPort);
  if (!config.databaseUrl && config.dataDir) mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore({
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : config.dataDir ? { dataDir: config.dataDir } : {}),
    domain: config.domain,
    ...(options.now ? { now: options.now } : {}),
  });
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => logger.error({ err: e }, "stop failed"));
    await store.close();
  };
  try {
    const engine = buildAuthzEngine({
      host: config.host,
      port: config.grpcPort,
      metricsPort: config.metricsPort,
      store,
      domain: config.domain,
      environment: config.env,
      ...(config.roleConfigDir ? { roleConfigDir: config.roleConfigDir } : {}),
      authn: { mode: "unauthenticated" },
      ...(options.now ? { now: options.now } : {}),
      // The engine logs each call at debug (quiet in a deployment at info); locally, whenever this
      // process logs requests at all, its calls are shown too.
      logger: logger.child({ service: "authz-engine" }, logger.isLevelEnabled("info") && !logger.isLevelEnabled("debug") ? { level: "debug" } : {}),
    });
    // The management API seeds the role configuration's system roles, which the demo binds. Its port
    // also serves the engine's HTTP/JSON checks (one origin for a browser: the console, /api/rbac/
    // and /api/kessel/), answered by the engine's own handlers and authenticator.
    const management = buildManagementApi(
      { port: config.httpPort, host: config.host, domain: config.domain, env: config.env, ...(config.roleConfigDir ? { roleConfigDir: config.roleConfigDir } : {}), trustIdentityHeader: true },
      {
        store,
        logger: logger.child({ service: "management-api" }),
        mounts: [{ prefix: KESSEL_HTTP_PREFIX, listener: engine.httpApi }],
        // The same clock as the store and the engine: dates (cross-account requests, expiries) agree.
        ...(options.now ? { now: options.now } : {}),
      },
    );
    const http = await bind("management API", config.httpPort, () => management.start());
    stops.push(() => management.stop());

    const demo = config.seedDemo ? await seedDemoOrg(store) : null;

    const grpc = await bind("authz-engine gRPC", config.grpcPort, () => engine.start());
    stops.push(() => engine.stop());

    const cache = buildWorkspaceCache({
      port: config.cachePort,
      host: config.host,
      source: { directory: workspaceDirectoryFromStore(store) },
      cache: config.redisUrl ? { kind: "redis", url: config.redisUrl } : { kind: "memory" },
      auth: { mode: "disabled" },
    });
    const cached = await bind("workspace-cache", config.cachePort, () => cache.start());
    stops.push(() => cache.stop());

    return { store, demo, ports: { http: http.port, grpc: grpc.port, cache: cached.port, metrics: grpc.metricsPort }, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
