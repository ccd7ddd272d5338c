import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import {
  KesselInventoryServiceClient,
  type CheckBulkRequest,
  type CheckBulkResponse,
  type CheckForUpdateBulkRequest,
  type CheckForUpdateBulkResponse,
  type CheckForUpdateRequest,
  type CheckForUpdateResponse,
  type CheckRequest,
  type CheckResponse,
  type CheckSelfBulkRequest,
  type CheckSelfBulkResponse,
  type CheckSelfRequest,
  type CheckSelfResponse,
  type DeleteResourceRequest,
  type DeleteResourceResponse,
  type ReportResourceRequest,
  type ReportResourceResponse,
  type StreamedListObjectsRequest,
  type StreamedListObjectsResponse,
} from "@gatehouse/proto";
import { openStore, type Relationship, type Store } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import type { FollowHandle, GraphSource } from "../src/graph/source.js";
import { buildServer, type EngineConfig, type EngineServer } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
/** The public fixtures carried in the repository: <repo root>/fixtures (fixtures/README.md). */
export const fixturesDir = join(here, "..", "..", "..", "fixtures");
export const stageSchema = readFileSync(join(fixturesDir, "rbac-config", "stage", "schema.zed"), "utf8");

export interface RunningEngine {
  server: EngineServer;
  store: Store;
  port: number;
  metricsPort: number;
  /** The checks are served on their HTTP/2 streams (EngineConfig.directChecks). */
  directChecks: boolean;
  client: KesselInventoryServiceClient;
  close(): Promise<void>;
}

/**
 * Threads of the engines the tests start (`pnpm test:threads` sets AUTHZ_TEST_THREADS=2): one unless
 * set, and one for an engine given what cannot reach another thread (a compiled model, a clock, extra services).
 */
function testThreads(overrides: Partial<EngineConfig>): number {
  if (overrides.model || overrides.now || overrides.extraServices) return 1;
  return Number(process.env["AUTHZ_TEST_THREADS"] ?? 1);
}

export async function startEngine(overrides: Partial<EngineConfig> = {}, store?: Store): Promise<RunningEngine> {
  const openedStore = store ?? (await openStore({ pollIntervalMs: 50 }));
  const server = buildServer({
    threads: testThreads(overrides),
    host: "127.0.0.1",
    port: 0,
    metricsPort: 0,
    schemaText: stageSchema,
    store: openedStore,
    logger: createSilentLogger(),
    shutdownTimeoutMs: 2000,
    ...overrides,
  });
  const { port, metricsPort, directChecks } = await server.start();
  const client = new KesselInventoryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    server,
    store: openedStore,
    port,
    metricsPort,
    directChecks,
    client,
    async close() {
      client.close();
      await server.stop();
      if (!store) await openedStore.close();
    },
  };
}

interface UnaryMethods {
  check: [CheckRequest, CheckResponse];
  checkForUpdate: [CheckForUpdateRequest, CheckForUpdateResponse];
  checkBulk: [CheckBulkRequest, CheckBulkResponse];
  checkForUpdateBulk: [CheckForUpdateBulkRequest, CheckForUpdateBulkResponse];
  checkSelf: [CheckSelfRequest, CheckSelfResponse];
  checkSelfBulk: [CheckSelfBulkRequest, CheckSelfBulkResponse];
  reportResource: [ReportResourceRequest, ReportResourceResponse];
  deleteResource: [DeleteResourceRequest, DeleteResourceResponse];
}

type UnaryFn<Req, Res> = (request: Req, metadata: Metadata, callback: (error: ServiceError | null, response: Res) => void) => unknown;

/** Calls a unary method of the generated (callback-style) client and returns a promise. */
export function call<M extends keyof UnaryMethods>(
  client: KesselInventoryServiceClient,
  method: M,
  request: Partial<UnaryMethods[M][0]>,
  metadata: Metadata = new Metadata(),
): Promise<UnaryMethods[M][1]> {
  const fn = client[method] as unknown as UnaryFn<Partial<UnaryMethods[M][0]>, UnaryMethods[M][1]>;
  return new Promise((resolve, reject) => {
    fn.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

export async function listAll(client: KesselInventoryServiceClient, request: StreamedListObjectsRequest): Promise<StreamedListObjectsResponse[]> {
  const items: StreamedListObjectsResponse[] = [];
  for await (const item of client.streamedListObjects(request)) items.push(item as StreamedListObjectsResponse);
  return items;
}

export const principal = (userId: string) => ({
  resourceType: "principal",
  resourceId: `redhat/${userId}`,
  reporter: { type: "rbac" },
});
export const workspace = (id: string) => ({ resourceType: "workspace", resourceId: id, reporter: { type: "rbac" } });
export const host = (id: string) => ({ resourceType: "host", resourceId: id, reporter: { type: "hbi" } });

const rel = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string, subjectRelation?: string): Relationship => ({
  resourceType,
  resourceId,
  relation,
  subjectType,
  subjectId,
  ...(subjectRelation ? { subjectRelation } : {}),
});

/**
 * Tuples granting `userId` host and workspace read on `workspaceId` (and everything below it):
 * a role with inventory_hosts_read + inventory_groups_read, bound to the principal on the workspace.
 */
export function readGrant(workspaceId: string, userId: string, bindingId = `b-${workspaceId}-${userId}`, roleId = "role-readers"): Relationship[] {
  return [
    rel("rbac/role", roleId, "t_inventory_hosts_read", "rbac/principal", "*"),
    rel("rbac/role", roleId, "t_inventory_groups_read", "rbac/principal", "*"),
    rel("rbac/role_binding", bindingId, "t_role", "rbac/role", roleId),
    rel("rbac/role_binding", bindingId, "t_subject", "rbac/principal", `redhat/${userId}`),
    rel("rbac/workspace", workspaceId, "t_binding", "rbac/role_binding", bindingId),
  ];
}

export const childWorkspace = (id: string, parentId: string): Relationship => rel("rbac/workspace", id, "t_parent", "rbac/workspace", parentId);
export const hostIn = (hostId: string, workspaceId: string): Relationship => rel("hbi/host", hostId, "t_workspace", "rbac/workspace", workspaceId);

/** The error a call that must fail failed with (the test fails if it succeeded). */
export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error("expected the call to fail");
}

/** A client on a connection of its own (grpc-js otherwise shares one per target across clients). */
export function ownConnection(engine: RunningEngine): KesselInventoryServiceClient {
  return new KesselInventoryServiceClient(`127.0.0.1:${engine.port}`, credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 });
}

/** The value of the first /metrics line starting with `name` (0 when absent). */
export async function engineMetric(engine: RunningEngine, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${engine.metricsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(name));
  return line ? Number(line.split(" ").pop()) : 0;
}

/** Lets alice view `count` hosts (long ids) in a new tenant's default workspace, and waits until the engine has applied it. */
export async function seedViewableHosts(engine: RunningEngine, orgId: string, count: number): Promise<void> {
  const tenant = (await engine.store.tenants.bootstrap(orgId)).value;
  const ids = Array.from({ length: count }, (_, i) => `${orgId}-host-${String(i).padStart(5, "0")}-${"p".repeat(40)}`);
  const { revision } = await engine.store.relationships.write(orgId, {
    touch: [...readGrant(tenant.defaultWorkspaceId, "alice"), ...ids.map((id) => hostIn(id, tenant.defaultWorkspaceId))],
  });
  await call(engine.client, "check", {
    object: workspace(tenant.defaultWorkspaceId),
    relation: "view",
    subject: { resource: principal("alice") },
    consistency: { atLeastAsFresh: { token: engine.store.tokens.encode(revision) } },
  });
}

/**
 * `real.follow`, except that the first follow starts only once `gate` resolves (a replica whose
 * follower stalls, for instance until retention has deleted what it still needed); later follows
 * (after a recovery) start at once.
 */
export function followAfter(real: GraphSource, gate: Promise<void>): GraphSource["follow"] {
  let follows = 0;
  return (from, onCommit, onTransientError, onTruncated) => {
    if (follows++ > 0) return real.follow(from, onCommit, onTransientError, onTruncated);
    let handle: FollowHandle | undefined;
    let stopped = false;
    void gate.then(() => {
      if (!stopped) handle = real.follow(from, onCommit, onTransientError, onTruncated);
    });
    return {
      async stop() {
        stopped = true;
        await handle?.stop();
      },
    };
  };
}
