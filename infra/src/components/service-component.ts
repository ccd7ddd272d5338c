// One Gatehouse service on Kubernetes: ServiceAccount, Deployment, Service, HorizontalPodAutoscaler,
// PodDisruptionBudget, the NetworkPolicy admitting only its callers and, with prometheus-operator, the
// ServiceMonitor scraping its metrics port. The three services differ only in the arguments they pass here.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { GatehouseConfig, ServiceName, ServiceSettings } from "../config.js";

type Probe = k8s.types.input.core.v1.Probe;
type EnvVar = k8s.types.input.core.v1.EnvVar;
type NetworkPolicyPeer = k8s.types.input.networking.v1.NetworkPolicyPeer;

/** The UID/GID the images run as (`USER 10001` in every Dockerfile). */
export const RUN_AS_USER = 10001;
/** How long a terminating pod keeps serving before it is sent SIGTERM. */
export const PRE_STOP_SLEEP_SECONDS = 5;

export interface PortSpec {
  name: string;
  port: number;
  appProtocol: "http" | "grpc";
}

/** A plain value, or a reference to a key of a Kubernetes Secret (the value never enters the manifest). */
export type EnvSpec = { name: string; value: string } | { name: string; secretName: pulumi.Input<string>; secretKey: string };

/** A volume mounted into the container besides `/tmp`. */
export interface VolumeSpec {
  name: string;
  mountPath: string;
  source: Omit<k8s.types.input.core.v1.Volume, "name">;
}

export interface IngressSpec {
  /** Port names from `ports` this rule opens. */
  ports: string[];
  from: NetworkPolicyPeer[];
}

/** What every service needs from the rest of the program. */
export interface ServiceContext {
  cfg: GatehouseConfig;
  /** The namespace's name as an output, so every object waits for the Namespace. */
  namespace: pulumi.Input<string>;
  /** The Secret holding `database-url`, `redis-url` and, when configured, `database-read-url`. */
  secretName: pulumi.Input<string>;
  /** Whether that Secret holds `database-read-url`. */
  hasReadReplica: boolean;
  /** Objects the pods must wait for (the migrations Job): the Deployments depend on them. */
  before: pulumi.Resource[];
  opts: pulumi.ComponentResourceOptions;
}

export interface ServiceComponentArgs {
  name: ServiceName;
  namespace: pulumi.Input<string>;
  environment: string;
  image: string;
  settings: ServiceSettings;
  ports: PortSpec[];
  metrics: { port: string; path: string };
  probes: { liveness: Probe; readiness: Probe; startup: Probe };
  env: EnvSpec[];
  ingress: IngressSpec[];
  volumes?: VolumeSpec[];
  /** Create a ServiceMonitor for the metrics port (prometheus-operator; cluster monitoring ignores `prometheus.io` annotations). */
  serviceMonitor: boolean;
  /** Objects the Deployment waits for (the migrations Job). */
  before: pulumi.Resource[];
  /** Deployment rollout bound, when the service's start needs more than Kubernetes' default 600 s. */
  progressDeadlineSeconds?: number;
}

export class ServiceComponent extends pulumi.ComponentResource {
  readonly serviceAccount: k8s.core.v1.ServiceAccount;
  readonly deployment: k8s.apps.v1.Deployment;
  readonly service: k8s.core.v1.Service;
  readonly autoscaler: k8s.autoscaling.v2.HorizontalPodAutoscaler;
  readonly disruptionBudget: k8s.policy.v1.PodDisruptionBudget;
  readonly networkPolicy: k8s.networking.v1.NetworkPolicy;
  readonly serviceMonitor?: k8s.apiextensions.CustomResource;
  /** What the Deployment waits for before Pulumi creates or updates it (the migrations Job). */
  readonly waitsFor: pulumi.Resource[];
  /** In-cluster DNS name of the Service. */
  readonly host: pulumi.Output<string>;

  constructor(args: ServiceComponentArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gatehouse:index:Service", args.name, {}, opts);
    const child = { parent: this };
    const name = args.name;
    // The selector is immutable on a Deployment, so it holds only labels that never change.
    const selector = { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "gatehouse" };
    const labels = {
      ...selector,
      "app.kubernetes.io/version": args.settings.imageTag,
      "app.kubernetes.io/managed-by": "pulumi",
      "gatehouse.io/environment": args.environment,
    };
    const metricsPort = portNumber(args.ports, args.metrics.port);
    const scrape = {
      "prometheus.io/scrape": "true",
      "prometheus.io/port": String(metricsPort),
      "prometheus.io/path": args.metrics.path,
    };
    const extraVolumes = args.volumes ?? [];
    this.waitsFor = args.before;
    const meta = (annotations?: Record<string, string>) => ({ name, namespace: args.namespace, labels, ...(annotations ? { annotations } : {}) });

    this.serviceAccount = new k8s.core.v1.ServiceAccount(
      name,
      // The services never call the Kubernetes API, so no token is mounted.
      { metadata: meta(), automountServiceAccountToken: false },
      child,
    );

    this.deployment = new k8s.apps.v1.Deployment(
      name,
      {
        metadata: meta(),
        spec: {
          // No `replicas`: the HorizontalPodAutoscaler owns the count (minReplicas is the floor); setting it
          // here would reset the scale on every update.
          selector: { matchLabels: selector },
          revisionHistoryLimit: 5,
          ...(args.progressDeadlineSeconds ? { progressDeadlineSeconds: args.progressDeadlineSeconds } : {}),
          strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
          template: {
            metadata: { labels, annotations: scrape },
            spec: {
              serviceAccountName: this.serviceAccount.metadata.name,
              automountServiceAccountToken: false,
              // preStop sleep (endpoints stop routing here) + the app's bounded drain (10 s) fit well inside it.
              terminationGracePeriodSeconds: 30,
              securityContext: podSecurityContext(),
              // Spread replicas over nodes and zones so one failure never takes every replica.
              topologySpreadConstraints: ["kubernetes.io/hostname", "topology.kubernetes.io/zone"].map((topologyKey) => ({
                maxSkew: 1,
                topologyKey,
                whenUnsatisfiable: "ScheduleAnyway",
                labelSelector: { matchLabels: selector },
              })),
              containers: [
                {
                  name,
                  image: args.image,
                  imagePullPolicy: "IfNotPresent",
                  ports: args.ports.map((p) => ({ name: p.name, containerPort: p.port, protocol: "TCP" })),
                  env: args.env.map(toEnvVar),
                  resources: args.settings.resources,
                  livenessProbe: args.probes.liveness,
                  readinessProbe: args.probes.readiness,
                  startupProbe: args.probes.startup,
                  // Kubernetes removes a terminating pod from Service endpoints while SIGTERM is already on its
                  // way; sleeping first lets that removal reach every proxy, so no new request arrives after the
                  // app starts draining (readiness 503, in-flight requests and streams finish, then exit).
                  lifecycle: { preStop: { exec: { command: ["sleep", String(PRE_STOP_SLEEP_SECONDS)] } } },
                  securityContext: containerSecurityContext(),
                  // The root filesystem is read-only; Node and libraries may still need a scratch directory.
                  volumeMounts: [{ name: "tmp", mountPath: "/tmp" }, ...extraVolumes.map((v) => ({ name: v.name, mountPath: v.mountPath }))],
                },
              ],
              volumes: [{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }, ...extraVolumes.map((v) => ({ name: v.name, ...v.source }))],
            },
          },
        },
      },
      { ...child, dependsOn: this.waitsFor },
    );

    this.service = new k8s.core.v1.Service(
      name,
      {
        metadata: meta(scrape),
        spec: {
          type: "ClusterIP",
          selector,
          ports: args.ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.name, protocol: "TCP", appProtocol: p.appProtocol })),
        },
      },
      child,
    );

    const target = { apiVersion: "apps/v1", kind: "Deployment", name: this.deployment.metadata.name };
    this.autoscaler = new k8s.autoscaling.v2.HorizontalPodAutoscaler(
      name,
      {
        metadata: meta(),
        spec: {
          scaleTargetRef: target,
          minReplicas: args.settings.replicas,
          maxReplicas: args.settings.maxReplicas,
          metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }],
          // Scale down slowly: the engine rebuilds its graph on start, so flapping is expensive.
          behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] } },
        },
      },
      child,
    );

    this.disruptionBudget = new k8s.policy.v1.PodDisruptionBudget(name, { metadata: meta(), spec: { minAvailable: args.settings.minAvailable, selector: { matchLabels: selector } } }, child);

    this.networkPolicy = new k8s.networking.v1.NetworkPolicy(
      name,
      {
        metadata: meta(),
        spec: {
          // Selecting the pods with an Ingress policy denies every caller not listed below.
          podSelector: { matchLabels: selector },
          policyTypes: ["Ingress"],
          ingress: args.ingress.map((rule) => ({
            from: rule.from,
            ports: rule.ports.map((p) => ({ protocol: "TCP", port: portNumber(args.ports, p) })),
          })),
        },
      },
      child,
    );

    if (args.serviceMonitor) {
      // Scrapes the Service's named metrics port; the scrape job is the Service's name, as the alert rules expect.
      this.serviceMonitor = new k8s.apiextensions.CustomResource(
        name,
        {
          apiVersion: "monitoring.coreos.com/v1",
          kind: "ServiceMonitor",
          metadata: meta(),
          spec: {
            selector: { matchLabels: selector },
            endpoints: [{ port: args.metrics.port, path: args.metrics.path, scheme: "http", interval: "30s" }],
          },
        },
        child,
      );
    }

    this.host = pulumi.interpolate`${this.service.metadata.name}.${this.service.metadata.namespace}.svc.cluster.local`;
    this.registerOutputs({ host: this.host });
  }

  /** Every Kubernetes object of this component. */
  get resources(): pulumi.CustomResource[] {
    return [this.serviceAccount, this.deployment, this.service, this.autoscaler, this.disruptionBudget, this.networkPolicy, ...(this.serviceMonitor ? [this.serviceMonitor] : [])];
  }
}

function portNumber(ports: PortSpec[], name: string): number {
  const port = ports.find((p) => p.name === name);
  if (!port) throw new Error(`port '${name}' is not declared (declared: ${ports.map((p) => p.name).join(", ")})`);
  return port.port;
}

export function podSecurityContext(): k8s.types.input.core.v1.PodSecurityContext {
  return { runAsNonRoot: true, runAsUser: RUN_AS_USER, runAsGroup: RUN_AS_USER, fsGroup: RUN_AS_USER, seccompProfile: { type: "RuntimeDefault" } };
}

export function containerSecurityContext(): k8s.types.input.core.v1.SecurityContext {
  return { runAsNonRoot: true, runAsUser: RUN_AS_USER, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } };
}

export function toEnvVar(e: EnvSpec): EnvVar {
  return "value" in e ? { name: e.name, value: e.value } : { name: e.name, valueFrom: { secretKeyRef: { name: e.secretName, key: e.secretKey } } };
}
