// Connection strings and client secrets never appear in plain text: not in any resource's inputs,
// not in rendered manifests, not in stack outputs.
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES } from "../src/config.js";
import { SECRETS, isSecretWrapper, resolve, runStack, withoutSecrets, type Run } from "./support/mocks.js";
import { envOf, get } from "./support/objects.js";

const secretValues = Object.values(SECRETS);

function expectNoSecretIn(value: unknown, where: string): void {
  const text = JSON.stringify(value);
  for (const secret of secretValues) expect(text.includes(secret), `${where} contains '${secret}'`).toBe(false);
}

describe.each(["stage", "prod"])("stack %s", (stack) => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack(stack);
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
  });

  it.each(SERVICE_NAMES)("%s reads connection strings by secretKeyRef, never as values", (name) => {
    for (const e of envOf(run, name).values()) {
      if (/_URL$/.test(e.name) && /DATABASE|REDIS/.test(e.name)) expect(e.value, e.name).toBeUndefined();
    }
    expectNoSecretIn(get(run, "Deployment", name), `Deployment/${name}`);
  });

  it("exports client settings in plain text and the client secret as a secret", async () => {
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
    expect(outputs.authzClientSecret).toBeDefined();
    expect(await pulumi.isSecret(outputs.authzClientSecret!)).toBe(true);
    expect(await resolve(outputs.authzClientSecret!)).toBe(SECRETS["gatehouse:authzClientSecret"]);
  });
});

describe("rendering YAML for kubectl", () => {
  let run: Run;
  beforeAll(async () => {
    run = await runStack("prod", {
      "gatehouse:renderYamlTo": "rendered/prod",
      "gatehouse:databaseUrl": undefined,
      "gatehouse:redisUrl": undefined,
    });
  });

  it("points the Kubernetes provider at the output directory", () => {
    const provider = run.registered.find((r) => r.type === "pulumi:providers:kubernetes");
    expect(provider?.inputs["renderYamlToDirectory"]).toBe("rendered/prod");
  });

  it("renders no Secret (manifests would hold it in plain text); Deployments use the out-of-band one", () => {
    expect([...run.objects.keys()].filter((k) => k.startsWith("Secret/"))).toEqual([]);
    const ref = envOf(run, "authz-engine").get("DATABASE_URL").valueFrom.secretKeyRef;
    expect(ref).toEqual({ name: "gatehouse-connections", key: "database-url" });
    for (const r of run.registered) expectNoSecretIn(r.inputs, `${r.type} ${r.name}`);
  });

  it("renders the same objects as a deployment, apart from the Secret", async () => {
    const deployed = await runStack("prod");
    const keys = (r: Run) => [...r.objects.keys()].filter((k) => !k.startsWith("Secret/")).sort();
    expect(keys(run)).toEqual(keys(deployed));
  });
});
