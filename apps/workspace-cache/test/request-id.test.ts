import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, type WorkspaceCacheServer } from "@gatehouse/workspace-cache";

describe("workspace-cache request ids and latency", () => {
  let server: WorkspaceCacheServer;
  let base: string;
  beforeAll(async () => {
    server = buildServer({ port: 0, host: "127.0.0.1", source: { directory: { builtInWorkspaces: async () => null } }, auth: { mode: "disabled" } });
    base = `http://127.0.0.1:${(await server.start()).port}`;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("echoes the caller's request id, also on errors, and generates one otherwise", async () => {
    const miss = await fetch(`${base}/api/rbac/v2/workspaces/?type=root`, { headers: { "x-rh-rbac-org-id": "nobody", "x-request-id": "wsc-1" } });
    expect(miss.status).toBe(404);
    expect(miss.headers.get("x-request-id")).toBe("wsc-1");
    const bad = await fetch(`${base}/elsewhere`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("observes request latency by route and status", async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="[^"]+",status_code="404"\} [1-9]/);
  });
});
