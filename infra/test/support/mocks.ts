// Runs the Pulumi program against Pulumi's runtime mocks and records every resource registration.
import * as pulumi from "@pulumi/pulumi";
import { loadConfig } from "../../src/config.js";
import { deploy, kubernetesObjects, type Deployed } from "../../src/program.js";
import { stackConfig } from "./stack-config.js";

export interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

// Rendered objects are plain JSON; tests read them loosely and assert on the values.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type K8sObject = any;

export interface Run {
  stack: string;
  registered: Registered[];
  deployed: Deployed;
  /** Kubernetes objects as they would be sent to the API server (secrets unwrapped), keyed `Kind/name`. */
  objects: Map<string, K8sObject>;
}

/** Connection strings and a client secret used by every run; tests search for them in plain text. */
export const SECRETS = {
  "gatehouse:databaseUrl": "postgres://gatehouse:db-pass-4f1c9a@db.internal:5432/gatehouse",
  "gatehouse:redisUrl": "redis://:redis-pass-8b27e0@redis.internal:6379",
  "gatehouse:authzClientSecret": "client-secret-c03d55",
};

export async function setupMocks(stack: string, config: Record<string, string>, secretKeys: string[] = []): Promise<Registered[]> {
  const registered: Registered[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
        const state = args.type.startsWith("kubernetes:") ? autoname(args.name, args.inputs) : args.inputs;
        return { id: `${args.name}-id`, state };
      },
      call: (args) => args.inputs,
    },
    "gatehouse",
    stack,
    false,
  );
  pulumi.runtime.setAllConfig(config, secretKeys);
  return registered;
}

/** What scripts/build-images.sh records per release (the stack files hold none). */
export const IMAGE_DIGESTS = {
  "management-api": `sha256:${"1a".repeat(32)}`,
  "authz-engine": `sha256:${"2b".repeat(32)}`,
  "workspace-cache": `sha256:${"3c".repeat(32)}`,
};

/** Overrides for the other way to give the connection strings: as Pulumi secrets, without a secret store (not in prod). */
export const PULUMI_SECRETS: Record<string, string | undefined> = { "gatehouse:externalSecrets": undefined, ...SECRETS };

/** A stack's real `Pulumi.<stack>.yaml` plus what a release adds: the image digests and a client application's id. */
export function releaseConfig(stack: string): Record<string, string> {
  return { ...stackConfig(stack), "gatehouse:authzClientId": "inventory-api", "gatehouse:imageDigests": JSON.stringify(IMAGE_DIGESTS) };
}

/** Deploys `stack` from its real `Pulumi.<stack>.yaml`, the release's digests and any overrides (undefined removes a key). */
export async function runStack(stack: string, overrides: Record<string, string | undefined> = {}): Promise<Run> {
  const config: Record<string, string> = releaseConfig(stack);
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete config[k];
    else config[k] = v;
  }
  const registered = await setupMocks(stack, config, Object.keys(SECRETS));
  const deployed = deploy(loadConfig());
  // Registrations are asynchronous: wait until every object has been registered.
  await Promise.all(kubernetesObjects(deployed).map((r) => resolve(r.urn)));
  await Promise.all(Object.values(deployed.services).map((s) => resolve(s.urn)));
  const objects = new Map<string, K8sObject>();
  for (const r of registered) {
    if (!r.type.startsWith("kubernetes:")) continue;
    const obj = autoname(r.name, unwrapSecrets(r.inputs) as Record<string, unknown>);
    objects.set(`${String(obj["kind"])}/${(obj["metadata"] as { name: string }).name}`, obj);
  }
  return { stack, registered, deployed, objects };
}

/** Pulumi's auto-naming of objects without an explicit name (the provider appends a random suffix). */
function autoname(resourceName: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const metadata = (inputs["metadata"] ?? {}) as Record<string, unknown>;
  return { ...inputs, metadata: { ...metadata, name: metadata["name"] ?? `${resourceName}-a1b2c3` } };
}

export function resolve<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((ok) => output.apply((v) => ok(v)));
}

export function isSecretWrapper(v: unknown): v is { value: unknown } {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[pulumi.runtime.specialSigKey] === pulumi.runtime.specialSecretSig;
}

/** Replaces Pulumi secret wrappers by their values: what the provider would send to the API server. */
export function unwrapSecrets(v: unknown): unknown {
  if (isSecretWrapper(v)) return unwrapSecrets(v.value);
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrapSecrets(x)]));
  return v;
}

/** The inputs with every secret wrapper removed: what may be shown in plain text. */
export function withoutSecrets(v: unknown): unknown {
  if (isSecretWrapper(v)) return "[secret]";
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutSecrets(x)]));
  return v;
}
