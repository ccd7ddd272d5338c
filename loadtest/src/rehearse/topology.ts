// The stage topology on one machine, as infra/ deploys it: the migrations first (a Job there), then
// two management API processes, two engine replicas (snapshots and database checkpoints read on the
// replica through DATABASE_READ_URL, the change feed followed on the primary), the workspace cache
// on Redis, each gated by its /readyz, and HAProxy in front, routed by infra's table of public paths.
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { PUBLIC_ROUTES } from "../../../infra/src/route-table.ts";
import { freePort, REPO_ROOT } from "../server.ts";
import { Haproxy } from "./haproxy.ts";
import { renderHaproxyConfig } from "./haproxy-config.ts";
import { startPostgresPair, type PostgresPair } from "./postgres.ts";
import { httpOk, type ManagedProcess, type ProcessRegistry, type ProcessSpec, runToEnd, StartError, waitUntil } from "./processes.ts";
import { RedisServer } from "./redis.ts";

type AppName = "management-api" | "authz-engine" | "workspace-cache";

export interface TopologyOptions {
  dir: string;
  /** Run the apps' TypeScript sources through tsx (tests, CI: nothing is built) instead of dist/. */
  fromSource: boolean;
  /** How often each engine writes a database checkpoint (the fast start after a crash reads it). */
  checkpointIntervalSeconds: number;
  log: (line: string) => void;
}

/** The command line of an app's entry (`main` or the management API's `migrate`). */
function entry(app: AppName, file: string, fromSource: boolean): string[] {
  if (fromSource) return ["--conditions=source", "--import", "tsx", path.join("apps", app, "src", `${file}.ts`)];
  const built = path.join("apps", app, "dist", `${file}.js`);
  if (!existsSync(path.join(REPO_ROOT, built))) throw new StartError(`${built} is missing: build first (pnpm build)`);
  return [built];
}

/** One replica of an app: restartable with the same ports and environment, like a pod of a Deployment. */
export class AppInstance {
  process: ManagedProcess | undefined;
  starts = 0;

  constructor(
    readonly name: string,
    private readonly registry: ProcessRegistry,
    private readonly spec: Omit<ProcessSpec, "logFile" | "name">,
    private readonly dir: string,
    readonly readyUrl: string,
  ) {}

  /** Spawns the process and resolves once its /readyz answers 200. */
  async start(): Promise<void> {
    this.starts += 1;
    this.process = this.registry.start({ ...this.spec, name: this.name, logFile: path.join(this.dir, `${this.name}.${this.starts}.log`) });
    await waitUntil(`${this.name} /readyz`, () => httpOk(this.readyUrl), this.process);
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }

  async kill9(): Promise<void> {
    await this.process?.kill9();
  }

  log(): string {
    return this.process?.log(20_000) ?? "";
  }
}

export interface Topology {
  /** The ingress: HTTP/1.1 and h2c (gRPC) on one port. */
  ingressUrl: string;
  ingressGrpc: string;
  /** The workspace cache (in-cluster only: not behind the ingress). */
  cacheUrl: string;
  managementApis: AppInstance[];
  engines: AppInstance[];
  cache: AppInstance;
  redis: RedisServer;
  postgres: PostgresPair;
  /** Gatehouse's database on the primary (writes) and on the replica (the engines' snapshots). */
  databaseUrl: string;
  databaseReadUrl: string;
  /** A database of its own for the load test's application table. */
  appDatabaseUrl: string;
  haproxy: Haproxy;
  /** The environment every service gets (infra's commonEnv): also a bulk import's. */
  commonEnv: NodeJS.ProcessEnv;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function createDatabases(url: string, names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const name of names) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

export async function startTopology(registry: ProcessRegistry, o: TopologyOptions): Promise<Topology> {
  const port = freePort;
  const t0 = performance.now();
  const since = (): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const postgres = await startPostgresPair(registry, o.dir, { primary: await port(), replica: await port() });
  o.log(`postgres primary and streaming replica ready (${since()})`);
  const redis = await RedisServer.start(registry, o.dir, await port());
  await createDatabases(postgres.primaryUrl, ["gatehouse", "loadtest_app"]);
  const databaseUrl = withDatabase(postgres.primaryUrl, "gatehouse");
  const databaseReadUrl = withDatabase(postgres.replicaUrl, "gatehouse");
  const appDatabaseUrl = withDatabase(postgres.primaryUrl, "loadtest_app");

  // What infra's commonEnv sets for every service (apps/*/src settings), with local values.
  const common: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: process.env["HOME"],
    NODE_ENV: "production",
    GATEHOUSE_ENV: "stage",
    GATEHOUSE_DOMAIN: "redhat",
    LOG_LEVEL: "warn",
    GATEHOUSE_MIGRATE_ON_START: "false",
    DATABASE_URL: databaseUrl,
  };
  const node = process.execPath;
  await runToEnd(registry, { name: "migrations", command: node, args: entry("management-api", "migrate", o.fromSource), cwd: REPO_ROOT, env: common, logFile: path.join(o.dir, "migrations.log") });
  o.log(`migrations applied (${since()})`);

  const instance = (name: string, app: AppName, env: NodeJS.ProcessEnv, readyPort: number): AppInstance =>
    new AppInstance(name, registry, { command: node, args: entry(app, "main", o.fromSource), cwd: REPO_ROOT, env: { ...common, ...env } }, o.dir, `http://127.0.0.1:${readyPort}/readyz`);

  const managementApis: AppInstance[] = [];
  const engines: AppInstance[] = [];
  const enginePorts: { grpc: number; http: number }[] = [];
  for (const n of [1, 2]) {
    const http = await port();
    managementApis.push(instance(`management-api-${n}`, "management-api", { PORT: String(http), HOST: "127.0.0.1", TRUST_IDENTITY_HEADER: "true", WORKSPACE_ORG_CREATION_LIMIT: "100000" }, http));
    const e = { grpc: await port(), http: await port() };
    enginePorts.push(e);
    engines.push(
      instance(
        `authz-engine-${n}`,
        "authz-engine",
        {
          AUTHZ_GRPC_PORT: String(e.grpc),
          AUTHZ_METRICS_PORT: String(e.http),
          DATABASE_READ_URL: databaseReadUrl,
          AUTHZ_CHECKPOINT_IN_DATABASE: "true",
          AUTHZ_CHECKPOINT_INTERVAL_SECONDS: String(o.checkpointIntervalSeconds),
          AUTHN_MODE: "unauthenticated",
          // info: the log says whether a start came from a checkpoint or the whole snapshot.
          LOG_LEVEL: "info",
        },
        e.http,
      ),
    );
  }
  const cachePort = await port();
  const cache = instance("workspace-cache", "workspace-cache", { PORT: String(cachePort), HOST: "127.0.0.1", REDIS_URL: redis.url }, cachePort);
  await Promise.all([...managementApis, ...engines, cache].map((a) => a.start()));
  o.log(`management APIs, engines and workspace cache ready (${since()})`);

  const ingressPort = await port();
  const managementEndpoints = managementApis.map((a) => ({ name: a.name, host: "127.0.0.1", port: Number(new URL(a.readyUrl).port), checkPort: Number(new URL(a.readyUrl).port) }));
  const config = renderHaproxyConfig({
    routes: PUBLIC_ROUTES,
    bind: { host: "127.0.0.1", port: ingressPort },
    adminSocket: path.join(o.dir, "haproxy.sock"),
    checkIntervalMs: 500,
    endpoints: {
      "management-api": { http: managementEndpoints },
      "authz-engine": {
        http: engines.map((a, i) => ({ name: a.name, host: "127.0.0.1", port: enginePorts[i]!.http, checkPort: enginePorts[i]!.http })),
        grpc: engines.map((a, i) => ({ name: a.name, host: "127.0.0.1", port: enginePorts[i]!.grpc, checkPort: enginePorts[i]!.http })),
      },
    },
  });
  const haproxy = await Haproxy.start(registry, o.dir, config, path.join(o.dir, "haproxy.sock"));
  await haproxy.waitAllUp();
  o.log(`haproxy routing every server (${since()})`);
  return {
    ingressUrl: `http://127.0.0.1:${ingressPort}`,
    ingressGrpc: `127.0.0.1:${ingressPort}`,
    cacheUrl: `http://127.0.0.1:${cachePort}`,
    managementApis,
    engines,
    cache,
    redis,
    postgres,
    databaseUrl,
    databaseReadUrl,
    appDatabaseUrl,
    haproxy,
    commonEnv: common,
  };
}
