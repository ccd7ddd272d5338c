import { describe, expect, it } from "vitest";
import { AuthzClientError, createAuthzClient, loadClientConfig } from "@gatehouse/client";

describe("loadClientConfig", () => {
  it("is disabled unless AUTHZ_ENABLED is true", () => {
    expect(loadClientConfig({})).toEqual({ enabled: false });
    expect(loadClientConfig({ AUTHZ_ENABLED: "false", AUTHZ_URL: "garbage" })).toEqual({ enabled: false });
  });

  it("reads every AUTHZ_* option", () => {
    expect(
      loadClientConfig({
        AUTHZ_ENABLED: "true",
        AUTHZ_URL: "localhost:9091",
        AUTHZ_WORKSPACE_URL: "https://rbac.example.com/",
        AUTHZ_AUTH_ENABLED: "1",
        AUTHZ_AUTH_CLIENT_ID: "svc",
        AUTHZ_AUTH_CLIENT_SECRET: "s3cret",
        AUTHZ_AUTH_OIDC_ISSUER: "https://sso.example.com/realms/r",
        AUTHZ_INSECURE: "false",
      }),
    ).toEqual({
      enabled: true,
      url: "localhost:9091",
      workspaceUrl: "https://rbac.example.com",
      insecure: false,
      auth: { enabled: true, clientId: "svc", clientSecret: "s3cret", oidcIssuer: "https://sso.example.com/realms/r" },
    });
  });

  it("accepts URL forms of AUTHZ_URL and reduces them to host:port", () => {
    expect(loadClientConfig({ AUTHZ_ENABLED: "true", AUTHZ_URL: "grpc://authz.internal:9000" })).toMatchObject({ url: "authz.internal:9000" });
  });

  it.each([
    [{ AUTHZ_ENABLED: "maybe" }, /AUTHZ_ENABLED must be true or false/],
    [{ AUTHZ_ENABLED: "true" }, /AUTHZ_URL is required/],
    [{ AUTHZ_ENABLED: "true", AUTHZ_URL: "localhost" }, /AUTHZ_URL must be host:port/],
    [{ AUTHZ_ENABLED: "true", AUTHZ_URL: "localhost:99999" }, /invalid port/],
    [{ AUTHZ_ENABLED: "true", AUTHZ_URL: "h:1", AUTHZ_AUTH_ENABLED: "true" }, /AUTHZ_AUTH_CLIENT_ID is required when AUTHZ_AUTH_ENABLED=true/],
    [{ AUTHZ_ENABLED: "true", AUTHZ_URL: "h:1", AUTHZ_AUTH_ENABLED: "true", AUTHZ_AUTH_CLIENT_ID: "c" }, /AUTHZ_AUTH_CLIENT_SECRET is required/],
    [{ AUTHZ_ENABLED: "true", AUTHZ_URL: "h:1", AUTHZ_AUTH_ENABLED: "true", AUTHZ_AUTH_CLIENT_ID: "c", AUTHZ_AUTH_CLIENT_SECRET: "s" }, /AUTHZ_AUTH_OIDC_ISSUER is required/],
    [
      { AUTHZ_ENABLED: "true", AUTHZ_URL: "h:1", AUTHZ_AUTH_ENABLED: "true", AUTHZ_AUTH_CLIENT_ID: "c", AUTHZ_AUTH_CLIENT_SECRET: "s", AUTHZ_AUTH_OIDC_ISSUER: "http://sso" },
      /https:\/\/ \(http:\/\/ only with AUTHZ_INSECURE=true\)/,
    ],
    [{ AUTHZ_ENABLED: "true", AUTHZ_URL: "h:1", AUTHZ_INSECURE: "yes please" }, /AUTHZ_INSECURE must be true or false/],
  ])("rejects %j", (env, message) => {
    let error: unknown;
    try {
      loadClientConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AuthzClientError);
    expect((error as AuthzClientError).code).toBe("invalid-config");
    expect((error as Error).message).toMatch(message);
  });

  it("allows an http issuer with AUTHZ_INSECURE=true", () => {
    const config = loadClientConfig({
      AUTHZ_ENABLED: "true",
      AUTHZ_URL: "h:1",
      AUTHZ_INSECURE: "true",
      AUTHZ_AUTH_ENABLED: "true",
      AUTHZ_AUTH_CLIENT_ID: "c",
      AUTHZ_AUTH_CLIENT_SECRET: "s",
      AUTHZ_AUTH_OIDC_ISSUER: "http://127.0.0.1:1/",
    });
    expect(config).toMatchObject({ insecure: true, auth: { oidcIssuer: "http://127.0.0.1:1" } });
  });
});

describe("AUTHZ_ENABLED=false", () => {
  it("makes no call and rejects every helper with authz-disabled", async () => {
    const client = createAuthzClient(loadClientConfig({ AUTHZ_ENABLED: "false" }));
    expect(client.enabled).toBe(false);
    const calls = [
      client.checkResource({ resource: { type: "host", reporter: "hbi", id: "h1" }, permission: "inventory_host_view", subject: "u1" }),
      client.listWorkspaceIds({ permission: "inventory_host_view", subject: "u1" }),
      client.checkDefaultWorkspace({ orgId: "o1", permission: "p", subject: "u1" }),
      client.checkRootWorkspace({ orgId: "o1", permission: "p", subject: "u1" }),
      client.checkTenant({ orgId: "o1", permission: "p", subject: "u1" }),
      client.rootWorkspaceId("o1"),
    ];
    for (const call of calls) await expect(call).rejects.toMatchObject({ code: "authz-disabled" });
    client.close();
  });
});
