// The Secret the services read their connection strings from. Three sources, one shape (the keys
// of SECRET_KEYS): an ExternalSecret that the External Secrets Operator fills from a secret store
// (prod), a Secret holding Pulumi secrets (stage), or, when rendering YAML without a store, a
// Secret created out of band under `secretName`.
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { ExternalSecretsConfig, GatehouseConfig, RemoteRef } from "../config.js";
import { SECRET_KEYS } from "./env.js";

export interface Connections {
  /** Name of the Secret the Deployments and the migrations Job reference. */
  secretName: pulumi.Input<string>;
  /** Whether the Secret holds `database-read-url` (the engine then reads snapshots and checkpoints on the replica). */
  hasReadReplica: boolean;
  /** Whether it holds `authz-client-secret` (a client application's OIDC secret). */
  hasClientSecret: boolean;
  resources: pulumi.CustomResource[];
}

export function connections(cfg: GatehouseConfig, namespace: pulumi.Input<string>, labels: Record<string, string>, opts: pulumi.CustomResourceOptions): Connections {
  if (cfg.externalSecrets) {
    const external = externalSecret(cfg.externalSecrets, cfg.secretName, namespace, labels, opts);
    return { secretName: cfg.secretName, hasReadReplica: !!cfg.externalSecrets.databaseReadUrl, hasClientSecret: !!cfg.externalSecrets.authzClientSecret, resources: [external] };
  }
  if (!cfg.connections) return { secretName: cfg.secretName, hasReadReplica: false, hasClientSecret: false, resources: [] };
  const c = cfg.connections;
  // Auto-named, so a changed value replaces the Secret under a new name and rolls every Deployment.
  const secret = new k8s.core.v1.Secret(
    "gatehouse-connections",
    {
      metadata: { namespace, labels },
      type: "Opaque",
      stringData: {
        [SECRET_KEYS.databaseUrl]: c.databaseUrl,
        [SECRET_KEYS.redisUrl]: c.redisUrl,
        ...(c.databaseReadUrl ? { [SECRET_KEYS.databaseReadUrl]: c.databaseReadUrl } : {}),
      },
    },
    opts,
  );
  return { secretName: secret.metadata.name, hasReadReplica: !!c.databaseReadUrl, hasClientSecret: false, resources: [secret] };
}

/** external-secrets.io/v1 ExternalSecret: the operator writes the target Secret and keeps it refreshed. */
function externalSecret(
  e: ExternalSecretsConfig,
  secretName: string,
  namespace: pulumi.Input<string>,
  labels: Record<string, string>,
  opts: pulumi.CustomResourceOptions,
): k8s.apiextensions.CustomResource {
  const entries: [keyof typeof SECRET_KEYS, RemoteRef | undefined][] = [
    ["databaseUrl", e.databaseUrl],
    ["redisUrl", e.redisUrl],
    ["databaseReadUrl", e.databaseReadUrl],
    ["authzClientSecret", e.authzClientSecret],
  ];
  return new k8s.apiextensions.CustomResource(
    "gatehouse-connections",
    {
      apiVersion: "external-secrets.io/v1",
      kind: "ExternalSecret",
      metadata: { name: secretName, namespace, labels },
      spec: {
        refreshInterval: e.refreshInterval,
        secretStoreRef: { kind: e.storeKind, name: e.storeName },
        // Owner: deleting the ExternalSecret deletes the Secret it made.
        target: { name: secretName, creationPolicy: "Owner" },
        data: entries.flatMap(([key, ref]) => (ref ? [{ secretKey: SECRET_KEYS[key], remoteRef: ref }] : [])),
      },
    },
    opts,
  );
}
