// Connection strings and client secrets never appear in plain text: not in any resource's inputs,
// not in rendered manifests, not in stack outputs. Both stacks take them from a secret store
// (ExternalSecret); stage may instead hold them as Pulumi secrets, which prod refuses (config.test.ts).
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES } from "../src/config.js";
import { PULUMI_SECRETS, SECRETS, isSecretWrapper, resolve, runStack, withoutSecrets, type Run } from "./support/mocks.js";
import { envOf, get } from "./support/objects.js";

const secretValues = Object.values(SECRETS);

function expectNoSecretIn(value: unknown, where: string): void {
  const text = JSON.stringify(value);
  for (const secret of secretValues) expect(text.includes(secret), `${where} contains '${secret}'`).toBe(false);
}

async function expectClientSettings(run: Run, stack: string): Promise<void> {
  const { outputs } = run.deployed;
  const settings = await resolve(pulumi.output(outputs.authzClientSettings));
  expect(settings).toMatchObject({
    AUTHZ_ENABLED: "true",
    AUTHZ_URL: `authz-engine.gatehouse-${stack}.svc.cluster.local:9091`,
    AUTHZ_AUTH_ENABLED: "true",
    AUTHZ_AUTH_CLIENT_ID: "inventory-api",
    AUTHZ_INSECURE: "true",
  });
  expect(settings.AUTHZ_AUTH_OIDC_ISSUER).toMatch(/^https:\/\/sso\./);
  expect(await pulumi.isSecret(pulumi.output(outputs.authzClientSettings))).toBe(false);
  expectNoSecretIn(settings, "authzClientSettings");
  for (const key of ["namespace", "managementApiUrl", "workspaceCacheUrl"] as const) {
    expect(await pulumi.isSecret(outputs[key]), key).toBe(false);
    expectNoSecretIn(await resolve(outputs[key]), key);
  }
}

describe.each(["stage", "prod"])("stack %s: connections from the secret store", (stack) => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack(stack);
  });

  it("an ExternalSecret names where each value lives; no Secret object and no value passes through Pulumi", () => {
    expect([...run.objects.keys()].filter((k) => k.startsWith("Secret/"))).toEqual([]);
    const external = get(run, "ExternalSecret", "gatehouse-connections");
    expect(external.spec.secretStoreRef).toEqual({ kind: "ClusterSecretStore", name: "gatehouse-secrets" });
    expect(external.spec.target).toEqual({ name: "gatehouse-connections", creationPolicy: "Owner" });
    expect(Object.fromEntries(external.spec.data.map((d: { secretKey: string; remoteRef: unknown }) => [d.secretKey, d.remoteRef]))).toEqual({
      "database-url": { key: `gatehouse/${stack}/postgres`, property: "url" },
      "database-read-url": { key: `gatehouse/${stack}/postgres`, property: "read-url" },
      "redis-url": { key: `gatehouse/${stack}/redis`, property: "url" },
      "authz-client-secret": { key: `gatehouse/${stack}/oidc-client`, property: "client-secret" },
    });
    for (const r of run.registered) expect(JSON.stringify(r.inputs).includes(pulumi.runtime.specialSecretSig), `${r.type} ${r.name}`).toBe(false);
  });

  it.each(SERVICE_NAMES)("%s reads every connection string from the ExternalSecret's target by secretKeyRef", (name) => {
    for (const e of envOf(run, name).values()) {
      if (/_URL$/.test(e.name) && /DATABASE|REDIS/.test(e.name)) expect(e.valueFrom?.secretKeyRef?.name, e.name).toBe("gatehouse-connections");
    }
  });

  it("exports the client settings in plain text and where the client secret lives, not its value", async () => {
    await expectClientSettings(run, stack);
    const { outputs } = run.deployed;
    expect(outputs.authzClientSecret).toBeUndefined();
    expect(outputs.authzClientSecretRef).toMatchObject({ secretName: "gatehouse-connections", key: "authz-client-secret" });
    expect(await resolve(outputs.authzClientSecretRef!.namespace)).toBe(`gatehouse-${stack}`);
  });
});

describe("stage with the connections as Pulumi secrets", () => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack("stage", PULUMI_SECRETS);
  });

  it("registers secret values only inside Pulumi secrets", () => {
    for (const r of run.registered) expectNoSecretIn(withoutSecrets(r.inputs), `${r.type} ${r.name}`);
  });

  it("holds the connections in a Kubernetes Secret whose data is a Pulumi secret", () => {
    const secret = run.registered.find((r) => r.type === "kubernetes:core/v1:Secret");
    expect(secret).toBeDefined();
    expect(isSecretWrapper(secret!.inputs["stringData"])).toBe(true);
    // ...and the values really are there, so the check above is not vacuous.
    const data = get(run, "Secret", "gatehouse-connections-a1b2c3").stringData;
    expect(data).toEqual({ "database-url": SECRETS["gatehouse:databaseUrl"], "redis-url": SECRETS["gatehouse:redisUrl"] });
    expect([...run.objects.keys()].filter((k) => k.startsWith("ExternalSecret/"))).toEqual([]);
  });

  it.each(SERVICE_NAMES)("%s reads connection strings by secretKeyRef, never as values", (name) => {
    for (const e of envOf(run, name).values()) {
      if (/_URL$/.test(e.name) && /DATABASE|REDIS/.test(e.name)) expect(e.value, e.name).toBeUndefined();
    }
    expectNoSecretIn(get(run, "Deployment", name), `Deployment/${name}`);
  });

  it("exports the client secret as a secret", async () => {
    await expectClientSettings(run, "stage");
    const { outputs } = run.deployed;
    expect(outputs.authzClientSecret).toBeDefined();
    expect(await pulumi.isSecret(outputs.authzClientSecret!)).toBe(true);
    expect(await resolve(outputs.authzClientSecret!)).toBe(SECRETS["gatehouse:authzClientSecret"]);
  });
});

describe("rendering YAML for kubectl", () => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack("prod", { "gatehouse:renderYamlTo": "rendered/prod" });
  });

  it("points the Kubernetes provider at the output directory", () => {
    const provider = run.registered.find((r) => r.type === "pulumi:providers:kubernetes");
    expect(provider?.inputs["renderYamlToDirectory"]).toBe("rendered/prod");
  });

  it("renders the same objects as a deployment, the ExternalSecret included (it holds no value)", async () => {
    const deployed = await runStack("prod");
    expect([...run.objects.keys()].sort()).toEqual([...deployed.objects.keys()].sort());
    for (const r of run.registered) expectNoSecretIn(r.inputs, `${r.type} ${r.name}`);
  });

  it("without a secret store, renders no Secret; the Deployments use one created out of band", async () => {
    const plain = await runStack("stage", { "gatehouse:renderYamlTo": "rendered/stage", "gatehouse:externalSecrets": undefined });
    expect([...plain.objects.keys()].filter((k) => /^(Secret|ExternalSecret)\//.test(k))).toEqual([]);
    expect(envOf(plain, "authz-engine").get("DATABASE_URL").valueFrom.secretKeyRef).toEqual({ name: "gatehouse-connections", key: "database-url" });
    for (const r of plain.registered) expectNoSecretIn(r.inputs, `${r.type} ${r.name}`);
  });
});
