import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server, ServerCredentials, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { configureCheckCache, type Model } from "@gatehouse/evaluator";
import { compileRoleModel, compileRoleSchema, loadConfigDirectory, modelOf as roleConfigModel, type ConfigIdentity } from "@gatehouse/role-config";
import { HealthService, inventoryTuples, KesselInventoryHealthServiceService, KesselInventoryServiceService, relations } from "@gatehouse/proto";
import { cachedProbe, createBoundedHttpServer, createLogger, DEFAULT_HTTP_LIMITS, drainHttpServer, metricsContentType, type Logger } from "@gatehouse/telemetry";
import { answerNotServing, API_PREFIX, kesselHttpApi } from "./http/api.js";
import type { EngineContext } from "./commands/context.js";
import { LookupCache } from "./commands/lookup-cache.js";
import { openWritePolicy, reporterWritePolicy } from "./commands/write-policy.js";
import { resolveConfig, type EngineConfig } from "./config.js";
import { EngineError } from "./errors.js";
import { createAuthenticator, probeAuthenticator, trustingIdentityHeader } from "./grpc/authn.js";
import { serverStream, unary, type CallDeps } from "./grpc/calls.js";
import { echoBulkItems } from "./grpc/bulk-echo.js";
import { acceptEncodedResponses, memoizeResponseBytes } from "./grpc/encoded-responses.js";
import { addReflection } from "./grpc/reflection.js";
import { ArrivalDeadlines } from "./grpc/arrival-deadlines.js";
import { directMethods, MAX_RECEIVE_MESSAGE_BYTES } from "./grpc/direct-unary.js";
import { type ConnectionLimits, type DirectServing, type GrpcListener, listenGrpc, requestArrivalDeadline } from "./grpc/listener.js";
import { databaseCheckpointStore } from "./graph/checkpoint.js";
import { EngineGraph } from "./graph/engine-graph.js";
import { openStore, startFeedRetention, type FeedRetentionJob, type Store } from "@gatehouse/store";
import { storeGraphSource, storeResourceWriter } from "./graph/store-source.js";
import { wallClockMs } from "./graph/clock.js";
import { checkHandlers } from "./handlers/checks.js";
import { listHandlers } from "./handlers/lists.js";
import { resourceHandlers } from "./handlers/resources.js";
import { tupleHandlers } from "./handlers/tuples.js";
import { INVENTORY_SERVICE_NAME, kesselHealthHandlers, standardHealthService, type Readiness } from "./health.js";
import { strictUtf8Requests } from "./grpc/strict-utf8.js";
import { createEngineMetrics, renderThreadMetrics, type EngineMetrics } from "./metrics.js";
import { EngineThreads } from "./threads/pool.js";
import { graphOfBase } from "./threads/shared-graph.js";

export interface StartedEngine {
  port: number;
  metricsPort: number;
  /** The checks are served on their HTTP/2 streams ahead of grpc-js (EngineConfig.directChecks). */
  directChecks: boolean;
}

export interface EngineServer {
  /** Binds the ports, loads the snapshot and follows the change feed; resolves once ready. */
  start(): Promise<StartedEngine>;
  /** Stops accepting calls, lets in-flight calls and streams finish (bounded), then releases everything. */
  stop(): Promise<void>;
  ready(): boolean;
  /**
   * When (`performance.now()` of this process) the graph first reflected `revision`: from then on
   * a Check with that revision's token is answered without waiting. Recent revisions only;
   * undefined before start, for revisions not applied yet and for old ones (diagnostics, benchmark).
   */
  appliedAt(revision: number): number | undefined;
  /**
   * inventory-api's HTTP/JSON interface (paths under KESSEL_HTTP_PREFIX) as a request listener
   * another HTTP server mounts to serve it at its own origin: the very routes, handlers and
   * authenticator of the engine's HTTP port, given the caller's request untouched (headers and
   * body). Until the engine has started, and once it stops, answered 503.
   */
  httpApi(request: IncomingMessage, response: ServerResponse): void;
  /** The engine's other threads (null with one thread, or before start). */
  threads(): EngineThreads | null;
  /**
   * Ends every connection at once and stops accepting (their calls fail as UNAVAILABLE; clients
   * retry on another connection): a thread that cannot go on, before it exits.
   */
  abort(): void;
}

/** The schema to evaluate, and the identity of the role configuration it came from (if any). */
function modelOf(config: EngineConfig): { model: Model; identity?: ConfigIdentity } {
  if (config.model) return { model: config.model };
  if (config.schemaText !== undefined) return { model: compileRoleSchema(config.schemaText) };
  if (config.roleConfigDir) {
    const loaded = loadConfigDirectory(config.roleConfigDir);
    return { model: roleConfigModel(loaded), identity: loaded.identity };
  }
  return { model: compileRoleModel(config.environment ?? "stage") };
}

function inventoryService(ctx: EngineContext, handlers: InventoryHandlers, deps: CallDeps): UntypedServiceImplementation {
  const { checks, resources } = handlers;
  const lists = listHandlers(ctx);
  return {
    check: unary("Check", deps, checks.check),
    checkForUpdate: unary("CheckForUpdate", deps, checks.checkForUpdate),
    checkBulk: unary("CheckBulk", deps, checks.checkBulk),
    checkSelf: unary("CheckSelf", deps, checks.checkSelf),
    checkSelfBulk: unary("CheckSelfBulk", deps, checks.checkSelfBulk),
    checkForUpdateBulk: unary("CheckForUpdateBulk", deps, checks.checkForUpdateBulk),
    reportResource: unary("ReportResource", deps, resources.reportResource),
    deleteResource: unary("DeleteResource", deps, resources.deleteResource),
    streamedListObjects: serverStream("StreamedListObjects", deps, lists.streamedListObjects),
    streamedListSubjects: serverStream("StreamedListSubjects", deps, lists.streamedListSubjects),
  };
}

/** The unary handlers both ports serve (gRPC, and HTTP/JSON through http/api.ts). */
interface InventoryHandlers {
  checks: ReturnType<typeof checkHandlers>;
  resources: ReturnType<typeof resourceHandlers>;
}

/**
 * The engine's HTTP listener: inventory-api's HTTP/JSON interface under `/api/kessel/` (as upstream
 * serves it beside `/metrics` on its one HTTP port), and the operational endpoints.
 * `/livez`: the process answers. `/readyz`: the snapshot is loaded, the engine is not stopping and
 * not reloading after its follower fell behind the feed's retention (EngineGraph.recovering),
 * so Check, CheckBulk, CheckSelf* and StreamedList* with minimize_latency are answered from memory.
 * Whether the store answers too (writes, CheckForUpdate*, at_least_as_fresh) is `store_up` in
 * `/metrics`, refreshed on each scrape: degraded, not unready. `/role-config`: the active role
 * configuration's identity.
 */
function httpServerOf(
  metrics: EngineMetrics,
  renderMetrics: () => Promise<string>,
  readiness: Readiness,
  storeAnswers: () => Promise<boolean>,
  logger: Logger,
  identity: () => ConfigIdentity | undefined,
  api: ReturnType<typeof kesselHttpApi>,
  connections: ConnectionLimits,
): HttpServer {
  // The HTTP services' bounds, with the engine's connection cap and idle timeout.
  const limits = { ...DEFAULT_HTTP_LIMITS, maxConnections: connections.max, idleTimeoutMs: connections.idleTimeoutMs, headersTimeoutMs: connections.headersTimeoutMs };
  return createBoundedHttpServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (path.startsWith(API_PREFIX)) {
      api(request, response, path);
    } else if (request.method !== "GET") {
      response.writeHead(405).end();
    } else if (path === "/metrics") {
      storeAnswers()
        .then((up) => metrics.storeUp.set(up ? 1 : 0))
        .then(renderMetrics)
        .then(
          (text) => response.writeHead(200, { "content-type": metricsContentType }).end(text),
          (error: unknown) => {
            logger.error({ err: error }, "metrics rendering failed");
            response.writeHead(500).end();
          },
        );
    } else if (path === "/role-config") {
      const active = identity();
      response
        .writeHead(active ? 200 : 404, { "content-type": "application/json" })
        .end(
          JSON.stringify(active ? { hash: active.hash, loaded_at: active.loadedAt.toISOString() } : { detail: "The engine runs on a schema given directly, not on a role-configuration directory." }),
        );
    } else if (path === "/livez") {
      response.writeHead(200, { "content-type": "text/plain" }).end("OK");
    } else if (path === "/readyz") {
      const ready = readiness.ready();
      response.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(ready ? "OK" : "NOT READY");
    } else {
      response.writeHead(404).end();
    }
  }, limits);
}

export function buildServer(config: EngineConfig = {}): EngineServer {
  const resolved = resolveConfig(config);
  // One limit for the process (the cache is the evaluator's, per graph; graphs of one engine share it).
  configureCheckCache({ maxBytes: resolved.checkCacheBytes });
  // Built here, so a bad authn block (e.g. an http issuer without insecureClient) fails before anything opens.
  const authenticator = createAuthenticator(resolved.authn);
  const logger = config.logger ?? createLogger({ name: "authz-engine" });
  const metrics = config.metrics ?? createEngineMetrics();
  let graph: EngineGraph | null = null;
  let ownedStore: Store | null = null;
  let grpcServer: Server | null = null;
  let httpServer: HttpServer | null = null;
  let grpcListener: GrpcListener | null = null;
  /** Request-arrival deadlines of the gRPC port's calls (one timer for all), stopped with the server. */
  let arrival: ArrivalDeadlines | null = null;
  let endWatches: () => void = () => {};
  let stopping = false;
  let feedRetention: FeedRetentionJob | undefined;
  let state: "new" | "starting" | "started" | "stopped" = "new";
  let activeIdentity: ConfigIdentity | undefined;
  let api: ReturnType<typeof kesselHttpApi> | null = null;
  /** The other engine threads, when this is the first of several (threads/). */
  let threads: EngineThreads | null = null;
  const thread = config.thread;
  // Every thread binds the ports with SO_REUSEPORT when there are several.
  const reusePort = thread !== undefined || resolved.threads > 1;
  if (resolved.threads > 1 && config.model) {
    throw new EngineError("invalid-config", "threads > 1 needs the schema as text, a role-configuration directory or an environment (a compiled model cannot be sent to a thread).");
  }

  const readiness: Readiness = { ready: () => !stopping && graph !== null && graph.ready };

  async function start(): Promise<StartedEngine> {
    if (state !== "new") throw new EngineError("invalid-config", "The engine server can be started once.");
    state = "starting";
    const store = config.store ?? (ownedStore = await openStore({ domain: resolved.domain, ...config.storeConfig }));
    // Once a reload has recorded the active role configuration, it is the schema (not the files,
    // which may hold a change the reload refused) unless the schema was given directly. The graph
    // reads it again as it loads (start and recovery alike) and reports a change by onModelReplaced.
    const schemaGiven = config.model !== undefined || config.schemaText !== undefined;
    const recorded = schemaGiven ? undefined : await store.roleConfig.active();
    const { model, identity } = recorded ? { model: compileRoleSchema(recorded.schemaZed), identity: { hash: recorded.hash, dir: recorded.dir, loadedAt: recorded.loadedAt } } : modelOf(config);
    activeIdentity = identity;
    if (identity) {
      metrics.roleConfigInfo.set({ hash: identity.hash }, 1);
      metrics.roleConfigLoaded.set(identity.loadedAt.getTime() / 1000);
    }
    const source = thread?.source ?? storeGraphSource(store);
    const checkpointStore = thread ? undefined : config.checkpoint && (config.checkpoint.store === "database" ? databaseCheckpointStore(store.checkpoints) : config.checkpoint.store);
    graph = new EngineGraph({
      model,
      keepStartSchema: schemaGiven,
      source,
      logger,
      onModelReplaced: (next) => {
        ctx.model = next;
        ctx.lookupCache = new LookupCache();
        void store.roleConfig.active().then(
          (active) => {
            if (!active) return;
            activeIdentity = { hash: active.hash, dir: active.dir, loadedAt: active.loadedAt };
            metrics.roleConfigInfo.reset();
            metrics.roleConfigInfo.set({ hash: active.hash }, 1);
            metrics.roleConfigLoaded.set(active.loadedAt.getTime() / 1000);
          },
          (error: unknown) => logger.warn({ err: error }, "could not read the active role configuration's identity"),
        );
      },
      ...(thread ? { checkpoints: { store: thread.checkpoints, storeId: store.storeId, intervalMs: 0 } } : {}),
      ...(checkpointStore
        ? {
            checkpoints: {
              store: checkpointStore,
              storeId: store.storeId,
              intervalMs: resolved.checkpointIntervalMs,
              onRejected: (reason) => metrics.checkpointFallbacks.inc({ reason }),
              onWritten: (written) => {
                metrics.checkpointWrites.inc();
                metrics.checkpointBytes.set(written.bytes);
              },
            },
          }
        : {}),
      onRefused: () => metrics.refusedChanges.inc(),
      onRecovery: (reason) => {
        metrics.feedRecoveries.inc({ reason });
        metrics.ready.set(0);
      },
      onRecovered: () => {
        threads?.share();
        metrics.ready.set(stopping ? 0 : 1);
        metrics.appliedRevision.set(graph?.appliedRevision ?? 0);
        metrics.relationships.set(graph?.graph.size ?? 0);
        metrics.graphNodes.set(graph?.graph.nodeCount ?? 0);
        metrics.graphOwnNodeBytes.set(graph?.graph.ownNodeBytes ?? 0);
      },
      onApplied: (batch) => {
        // committed_at is the database's clock, "now" is ours: the same host clock when Postgres
        // runs on this machine; across machines the figure includes their skew (NTP keeps it to
        // ~1 ms). committed_at carries whole milliseconds, so a value overstates the lag by up to
        // 1 ms; a negative difference (skew) counts as 0.
        if (batch.committed) metrics.feedApplyLag.observe(Math.max(0, wallClockMs() - batch.committed.getTime()) / 1000);
        threads?.applied(batch);
        metrics.appliedRevision.set(batch.revision);
        metrics.appliedChanges.inc(batch.changes.length);
        metrics.relationships.set(graph?.graph.size ?? 0);
        metrics.graphNodes.set(graph?.graph.nodeCount ?? 0);
        metrics.graphOwnNodeBytes.set(graph?.graph.ownNodeBytes ?? 0);
      },
    });

    const ctx: EngineContext = {
      graph,
      source,
      writer: storeResourceWriter(store),
      domain: resolved.domain,
      model,
      freshnessTimeoutMs: resolved.freshnessTimeoutMs,
      listDefaultLimit: resolved.listDefaultLimit,
      listMaxLimit: resolved.listMaxLimit,
      lookupCache: new LookupCache(),
      writePolicy: resolved.authn.mode === "oidc" ? reporterWritePolicy(resolved.reporters) : openWritePolicy,
      now: config.now ?? Date.now,
    };
    const deps: CallDeps = {
      authenticator,
      metrics,
      logger,
      service: INVENTORY_SERVICE_NAME,
      streams: { maxActive: resolved.streams.maxActive, idleTimeoutMs: resolved.streams.idleTimeoutMs, active: 0 },
    };

    arrival = new ArrivalDeadlines(resolved.connections.requestTimeoutMs);
    grpcServer = new Server({
      // Channelz (grpc-js's introspection service, never registered here) would still count every
      // call and message with timestamps: a cost on each call with nothing to read it.
      "grpc.enable_channelz": 0,
      "grpc.max_concurrent_streams": resolved.streams.maxPerConnection,
      // A connection with no call in progress (one that never sent a byte included) is closed.
      "grpc.max_connection_idle_ms": resolved.connections.idleTimeoutMs,
      // Stated, though it is grpc-js's default: the checks served directly apply the same bound.
      "grpc.max_receive_message_length": MAX_RECEIVE_MESSAGE_BYTES,
      interceptors: [requestArrivalDeadline(arrival)],
    });
    const handlers: InventoryHandlers = { checks: checkHandlers(ctx, resolved.domain), resources: resourceHandlers(ctx) };
    const inventoryDefinition = echoBulkItems(
      strictUtf8Requests(acceptEncodedResponses(memoizeResponseBytes(KesselInventoryServiceService, ["check", "checkSelf", "checkForUpdate"]), ["streamedListObjects"])),
      ["checkBulk", "checkForUpdateBulk", "checkSelfBulk"],
    );
    const inventoryImplementation = inventoryService(ctx, handlers, deps);
    grpcServer.addService(inventoryDefinition, inventoryImplementation);
    // The checks are served on their HTTP/2 streams ahead of grpc-js (same handlers and serializers).
    const direct: DirectServing | undefined =
      config.directChecks === false
        ? undefined
        : {
            methods: directMethods(inventoryDefinition, inventoryImplementation, ["check", "checkForUpdate", "checkSelf", "checkBulk", "checkForUpdateBulk", "checkSelfBulk"]),
            arrival,
            onUnavailable: () => logger.warn("the checks could not be served directly (grpc-js internals differ); grpc-js serves every call"),
          };
    // relations-api's tuple replication (a management plane such as insights-rbac writing into
    // Gatehouse), under its own name and under inventory-api's, which took the RPCs over: one set of
    // handlers, two wire definitions (the messages are the same but for field numbers).
    const tuples = tupleHandlers(store.replicated, ctx);
    for (const [name, definition] of [
      ["kessel.relations.v1beta1.KesselTupleService", relations.KesselTupleServiceService],
      ["kessel.inventory.v1beta2.KesselTupleService", inventoryTuples.KesselTupleServiceService],
    ] as const) {
      const tupleDeps: CallDeps = { ...deps, service: name };
      grpcServer.addService(strictUtf8Requests(definition), {
        createTuples: unary("CreateTuples", tupleDeps, tuples.createTuples),
        deleteTuples: unary("DeleteTuples", tupleDeps, tuples.deleteTuples),
        acquireLock: unary("AcquireLock", tupleDeps, tuples.acquireLock),
        readTuples: serverStream("ReadTuples", tupleDeps, tuples.readTuples),
      });
    }
    const kesselHealth = kesselHealthHandlers(readiness);
    const probeDeps: CallDeps = { ...deps, authenticator: probeAuthenticator, service: "kessel.inventory.v1.KesselInventoryHealthService" };
    grpcServer.addService(KesselInventoryHealthServiceService, {
      getLivez: unary("GetLivez", probeDeps, kesselHealth.getLivez),
      getReadyz: unary("GetReadyz", probeDeps, kesselHealth.getReadyz),
    });
    const standardHealth = standardHealthService(readiness);
    endWatches = standardHealth.endWatches;
    grpcServer.addService(HealthService, standardHealth.implementation);
    addReflection(grpcServer);
    for (const extra of config.extraServices ?? []) grpcServer.addService(extra.definition, extra.implementation);

    const credentials = resolved.tls
      ? ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(resolved.tls.cert), private_key: Buffer.from(resolved.tls.key) }], false)
      : ServerCredentials.createInsecure();
    // A thread shares its ports with threads already serving (SO_REUSEPORT): it binds once its graph
    // is loaded, or the kernel would hand it new connections it could only answer UNAVAILABLE.
    if (thread) await graph.load();
    grpcListener = await listenGrpc(
      grpcServer,
      credentials,
      resolved.host,
      resolved.port,
      resolved.connections,
      { onRefused: () => metrics.refusedConnections.inc(), onClosed: (reason) => metrics.closedConnections.inc({ reason }) },
      direct,
      reusePort,
    );
    const port = grpcListener.port;

    const httpAuthenticator = config.http?.trustIdentityHeader && resolved.authn.mode === "oidc" ? trustingIdentityHeader(authenticator) : authenticator;
    const served = (api = kesselHttpApi({ ...handlers, health: kesselHealth, authenticator: httpAuthenticator, logger, metrics: metrics.metrics }));
    const storeAnswers = cachedProbe(() => source.headRevision());
    // Several threads: every thread's metrics in one exposition (the first thread gathers them).
    const renderMetrics = (): Promise<string> => {
      const all = threads?.allMetrics() ?? thread?.allMetrics?.();
      return all ? all.then(renderThreadMetrics) : metrics.metrics.render();
    };
    const http = (httpServer = httpServerOf(metrics, renderMetrics, readiness, storeAnswers, logger, () => activeIdentity, served, resolved.connections));
    const metricsPort = await new Promise<number>((resolve, reject) => {
      http.once("error", reject);
      http.listen({ port: resolved.metricsPort, host: resolved.host, ...(reusePort ? { reusePort: true } : {}) }, () => resolve((http.address() as AddressInfo).port));
    });

    // Ports are open (health answers NOT_SERVING) while the snapshot loads.
    if (!thread) await graph.load();
    const loaded = graph;
    // A newer shared base replaces this thread's graph between two calls.
    thread?.onBase((base) => {
      try {
        loaded.adopt(graphOfBase(base, ctx.model, store.storeId), base.revision);
        metrics.graphOwnNodeBytes.set(loaded.graph.ownNodeBytes);
      } catch (error) {
        logger.warn({ err: error, revision: base.revision }, "shared graph not adopted; answering from this thread's own");
      }
    });
    if (resolved.threads > 1 && !thread) {
      threads = new EngineThreads({
        count: resolved.threads,
        store,
        graph,
        model: () => ctx.model,
        config: threadConfig(config, port, metricsPort),
        logger,
        // store_up as of this scrape: the figure of the first thread is the process's.
        ownMetrics: () => storeAnswers().then((up) => (metrics.storeUp.set(up ? 1 : 0), metrics.metrics.registry.getMetricsAsJSON())),
      });
      await threads.start();
    }
    const retention = config.checkpoint?.retention;
    if (checkpointStore && !thread && retention && retention.intervalMs > 0) {
      feedRetention = startFeedRetention(store.feed, {
        ...retention,
        checkpointRevisions: async () => (await checkpointStore.list()).map((ref) => ref.revision),
        // This replica never prunes what its own follower still has to read.
        neededRevision: () => graph?.appliedRevision ?? 0,
        onPruned: (deleted, through) => logger.info({ deleted, through }, "change-feed retention deleted old changes"),
        onError: (error) => logger.warn({ err: error }, "change-feed retention failed; retrying at the next interval"),
      });
    }
    metrics.appliedRevision.set(graph.appliedRevision);
    metrics.relationships.set(graph.graph.size);
    metrics.ready.set(1);
    state = "started";
    logger.info({ port, metricsPort, tls: resolved.tls !== undefined, authn: resolved.authn.mode }, "authz engine ready");
    return { port, metricsPort, directChecks: grpcListener.direct };
  }

  async function stop(): Promise<void> {
    if (state === "stopped") return;
    state = "stopped";
    stopping = true;
    metrics.ready.set(0);
    endWatches();
    await threads?.stop();
    await grpcListener?.close();
    const server = grpcServer;
    if (server) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger.warn({ timeoutMs: resolved.shutdownTimeoutMs }, "in-flight calls did not finish in time; cancelling them");
          server.forceShutdown();
          resolve();
        }, resolved.shutdownTimeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    // Every call has ended: nothing is left to watch (a header block never finished included).
    grpcListener?.end();
    grpcListener = null;
    arrival?.close();
    await feedRetention?.stop();
    await graph?.close();
    const http = httpServer;
    if (http) await drainHttpServer(http, resolved.shutdownTimeoutMs);
    await ownedStore?.close();
    logger.info("authz engine stopped");
  }

  function httpApi(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (api && state === "started" && !stopping) {
      api(request, response, path);
      return;
    }
    answerNotServing(request, response);
  }

  function abort(): void {
    stopping = true;
    void grpcListener?.close();
    grpcListener?.end();
    httpServer?.close();
    httpServer?.closeAllConnections();
  }

  return { start, stop, ready: readiness.ready, appliedAt: (revision) => graph?.appliedAt(revision), httpApi, threads: () => threads, abort };
}

/** The other threads' config: this one's plain settings on the ports it bound (no functions, no handles). */
function threadConfig(config: EngineConfig, port: number, metricsPort: number): EngineConfig {
  const { logger: _logger, metrics: _metrics, store: _store, storeConfig: _storeConfig, model: _model, checkpoint: _checkpoint, extraServices: _extra, now: _now, thread: _thread, ...plain } = config;
  return { ...plain, port, metricsPort, threads: 1 };
}
