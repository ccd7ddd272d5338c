import { engineSizing, engineThreads, type GatehouseConfig, quantityBytes } from "../config.js";
import { ingressRules } from "../network-policies.js";
import { commonEnv, engineAuthnEnv, secretEnv } from "./env.js";
import { imageFor } from "./image.js";
import { grpcProbes } from "./probes.js";
import { type EnvSpec, ServiceComponent, type ServiceContext, type VolumeSpec } from "./service-component.js";

export const AUTHZ_ENGINE_PORT = 9091;
export const AUTHZ_ENGINE_METRICS_PORT = 9000;

/**
 * gRPC kessel.inventory.v1beta2 on 9091 with grpc.health.v1; on 9000 (port `http`) inventory-api's
 * HTTP/JSON interface under /api/kessel/ (browser access checks), metrics and HTTP health.
 */
export function authzEngine({ cfg, namespace, secretName, hasReadReplica, before, opts }: ServiceContext): ServiceComponent {
  const name = "authz-engine";
  const checkpoints = checkpointSetup(cfg);
  const startBudget = engineStartBudgetSeconds(cfg);
  return new ServiceComponent(
    {
      name,
      namespace,
      environment: cfg.environment,
      image: imageFor(cfg, name),
      settings: cfg.services[name],
      ports: [
        { name: "grpc", port: AUTHZ_ENGINE_PORT, appProtocol: "grpc" },
        { name: "http", port: AUTHZ_ENGINE_METRICS_PORT, appProtocol: "http" },
      ],
      metrics: { port: "http", path: "/metrics" },
      probes: grpcProbes(AUTHZ_ENGINE_PORT, "http", startBudget),
      env: [
        // Only what the engine reads (its schema: apps/authz-engine/src/settings.ts): its ports are
        // AUTHZ_GRPC_PORT / AUTHZ_METRICS_PORT, not PORT, and it uses no Redis.
        ...commonEnv(cfg, name, AUTHZ_ENGINE_PORT).filter((e) => e.name !== "PORT"),
        { name: "AUTHZ_GRPC_PORT", value: String(AUTHZ_ENGINE_PORT) },
        { name: "AUTHZ_METRICS_PORT", value: String(AUTHZ_ENGINE_METRICS_PORT) },
        secretEnv("DATABASE_URL", secretName, "databaseUrl"),
        // Snapshots and database checkpoints are read on the replica; the feed is followed on the primary.
        ...(hasReadReplica ? [secretEnv("DATABASE_READ_URL", secretName, "databaseReadUrl")] : []),
        ...checkpoints.env,
        { name: "NODE_OPTIONS", value: `--max-old-space-size=${heapMiB(cfg.services[name].resources.limits.memory)}` },
        // One serving thread per whole core of the limit (the default would count the node's cores).
        { name: "AUTHZ_THREADS", value: String(engineThreads(cfg.services[name].resources.limits.cpu)) },
        ...engineAuthnEnv(cfg),
      ],
      ingress: ingressRules(cfg)[name],
      volumes: checkpoints.volumes,
      serviceMonitor: cfg.monitoring,
      before,
      // A start that falls back to the whole snapshot (no usable checkpoint) must not fail the rollout.
      progressDeadlineSeconds: 2 * startBudget + 60,
    },
    opts,
  );
}

/**
 * How long a start may take before liveness applies: twice a start from the whole snapshot at the
 * size the stack's engine is sized for (`engineSizing`, docs/SCALING.md), the fallback when no
 * checkpoint is usable. From a checkpoint a replica is ready in seconds.
 */
export function engineStartBudgetSeconds(cfg: GatehouseConfig): number {
  const sized = engineSizing(cfg.engine.relationships);
  if (!sized) throw new Error(`no engine sizing for ${cfg.engine.relationships} relationships`);
  return sized.startBudgetSeconds;
}

const CHECKPOINT_MOUNT = "/var/lib/gatehouse/checkpoints";

/** Graph checkpoints: in the store's database (table gh_checkpoints) or on a volume every replica mounts. */
function checkpointSetup(cfg: GatehouseConfig): { env: EnvSpec[]; volumes: VolumeSpec[] } {
  const c = cfg.checkpoints;
  const interval = { name: "AUTHZ_CHECKPOINT_INTERVAL_SECONDS", value: String(c.intervalSeconds) };
  if (c.store === "database") return { env: [{ name: "AUTHZ_CHECKPOINT_IN_DATABASE", value: "true" }, interval], volumes: [] };
  return {
    env: [{ name: "AUTHZ_CHECKPOINT_DIR", value: CHECKPOINT_MOUNT }, interval],
    volumes: [{ name: "checkpoints", mountPath: CHECKPOINT_MOUNT, source: { persistentVolumeClaim: { claimName: c.claimName } } }],
  };
}

/**
 * V8's old-space limit: three quarters of the container's memory limit. Node's own default is far
 * below a multi-GiB limit, and the graph's typed arrays (outside the V8 heap) need the rest.
 */
export function heapMiB(memoryLimit: string): number {
  const bytes = quantityBytes(memoryLimit);
  if (!Number.isFinite(bytes)) throw new Error(`memory limit '${memoryLimit}' is not a byte quantity`);
  return Math.floor((bytes * 0.75) / 2 ** 20);
}
