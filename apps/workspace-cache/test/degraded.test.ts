// Degraded state: Redis or the store unreachable shows on /readyz (200 "degraded" while one of
// them answers, 503 when neither does) and in gatehouse_workspace_cache_dependency_up.
import { describe, expect, it } from "vitest";
import { startThrowawayRedis } from "@gatehouse/cache/testing";
import { migrateStore } from "@gatehouse/store";
import { DEFAULT_TEST_DATABASE_URL, dropSchema, randomSchemaName } from "@gatehouse/store/testing";
import { buildServer } from "@gatehouse/workspace-cache";

const at = "2026-01-01T00:00:00.000000Z";
const record = (id: string, type: string) => ({ id, parent_id: null, type, name: type, description: null, created: at, modified: at });

describe("workspace-cache degraded state", () => {
  it("reports each dependency on /readyz and /metrics, and is unready only when neither answers", async () => {
    const redis = await startThrowawayRedis();
    const store = { up: true };
    const server = buildServer({
      port: 0,
      host: "127.0.0.1",
      auth: { mode: "disabled" },
      // A bound for a hung Redis, not a speed check: the stopped one fails at once (no offline queue),
      // and on a loaded machine a live one may take longer than the default 250 ms to answer.
      cache: { kind: "redis", url: redis.url, commandTimeoutMs: 60_000 },
      probeIntervalMs: 0,
      source: {
        directory: {
          builtInWorkspaces: async () => ({ root: record("r", "root"), default: record("d", "default") }),
          ping: async () => {
            if (!store.up) throw new Error("connection refused");
          },
        },
      },
    });
    const base = `http://127.0.0.1:${(await server.start()).port}`;
    const readiness = async () => {
      const res = await fetch(`${base}/readyz`);
      return { status: res.status, body: await res.json() };
    };
    const gauges = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return Object.fromEntries([...text.matchAll(/^gatehouse_workspace_cache_dependency_up\{dependency="(\w+)"\} (\d)$/gm)].map((m) => [m[1], Number(m[2])]));
    };
    try {
      expect(await readiness()).toEqual({ status: 200, body: { status: "ok", cache: "up", source: "up" } });
      expect(await gauges()).toEqual({ cache: 1, source: 1 });

      store.up = false;
      expect(await readiness()).toEqual({ status: 200, body: { status: "degraded", cache: "up", source: "down" } });
      expect(await gauges()).toEqual({ cache: 1, source: 0 });

      await redis.stop();
      expect(await readiness()).toEqual({ status: 503, body: { status: "unavailable", cache: "down", source: "down" } });
      expect(await gauges()).toEqual({ cache: 0, source: 0 });

      store.up = true;
      expect(await readiness()).toEqual({ status: 200, body: { status: "degraded", cache: "down", source: "up" } });
      expect(await gauges()).toEqual({ cache: 0, source: 1 });
    } finally {
      await server.stop();
      await redis.stop();
    }
  });

  it("probes a store opened by the server itself, and reports it down when it cannot be reached", async () => {
    const server = buildServer({
      port: 0,
      host: "127.0.0.1",
      auth: { mode: "disabled" },
      probeIntervalMs: 0,
      source: { store: { databaseUrl: "postgres://nobody@127.0.0.1:1/none" } },
    });
    const base = `http://127.0.0.1:${(await server.start()).port}`;
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "degraded", cache: "up", source: "down" });
    } finally {
      await server.stop();
    }
  });

  it("a store that may not migrate (GATEHOUSE_MIGRATE_ON_START=false) on an unmigrated database is a source down, until the migrations run", async () => {
    const databaseUrl = process.env["DATABASE_URL"] ?? DEFAULT_TEST_DATABASE_URL;
    const schema = randomSchemaName("gh_wc_verify");
    const server = buildServer({
      port: 0,
      host: "127.0.0.1",
      auth: { mode: "disabled" },
      probeIntervalMs: 0,
      source: { store: { databaseUrl, schema, migrations: "verify" } },
    });
    const base = `http://127.0.0.1:${(await server.start()).port}`;
    const readiness = async () => (await fetch(`${base}/readyz`)).json();
    try {
      expect(await readiness()).toEqual({ status: "degraded", cache: "up", source: "down" });
      await migrateStore({ databaseUrl, schema });
      expect(await readiness()).toEqual({ status: "ok", cache: "up", source: "up" });
    } finally {
      await server.stop();
      await dropSchema(databaseUrl, schema);
    }
  });
});
