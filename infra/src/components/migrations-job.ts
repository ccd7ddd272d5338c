// The database migrations of a release, applied once by a Job before the new pods start (the
// services run with GATEHOUSE_MIGRATE_ON_START=false and refuse a schema that lacks a migration).
// Pulumi waits for the Job to complete before it touches the Deployments (they depend on it, and
// the Kubernetes provider awaits a Job until its Complete condition, failing on Failed); the
// Job is auto-named and its pod template names the image, so a new release replaces it and runs again.
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { GatehouseConfig } from "../config.js";
import { secretEnv } from "./env.js";
import { imageFor } from "./image.js";
import { containerSecurityContext, podSecurityContext, toEnvVar } from "./service-component.js";

/** Labels that select the Job for `kubectl wait` when the manifests are applied by hand. */
export const MIGRATIONS_LABELS = { "app.kubernetes.io/name": "gatehouse-migrations", "app.kubernetes.io/component": "migrations" };

export function migrationsJob(
  cfg: GatehouseConfig,
  namespace: pulumi.Input<string>,
  secretName: pulumi.Input<string>,
  labels: Record<string, string>,
  opts: pulumi.CustomResourceOptions,
): k8s.batch.v1.Job {
  const jobLabels = { ...labels, ...MIGRATIONS_LABELS, "app.kubernetes.io/version": cfg.services["management-api"].imageTag };
  return new k8s.batch.v1.Job(
    "gatehouse-migrations",
    {
      // Pulumi waits for the Job to complete (10 minutes at most); one that failed is replaced, so runs again, on the next update.
      metadata: { namespace, labels: jobLabels, annotations: { "pulumi.com/replaceUnready": "true" } },
      spec: {
        // Each attempt is idempotent (applied versions are recorded, under a lock), so a retry is safe.
        backoffLimit: 3,
        template: {
          metadata: { labels: jobLabels },
          spec: {
            restartPolicy: "Never",
            automountServiceAccountToken: false,
            securityContext: podSecurityContext(),
            containers: [
              {
                name: "migrate",
                // The management API's image carries the migrations entry (`dist/migrate.js`).
                image: imageFor(cfg, "management-api"),
                command: ["node", "dist/migrate.js"],
                env: [{ name: "NODE_ENV", value: "production" }, secretEnv("DATABASE_URL", secretName, "databaseUrl")].map(toEnvVar),
                resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
                securityContext: containerSecurityContext(),
                volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
              },
            ],
            volumes: [{ name: "tmp", emptyDir: { sizeLimit: "16Mi" } }],
          },
        },
      },
    },
    opts,
  );
}
