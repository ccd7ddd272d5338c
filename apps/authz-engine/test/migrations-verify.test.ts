// The engine with GATEHOUSE_MIGRATE_ON_START=false (storeConfig.migrations "verify"): on a database
// lacking a migration it does not start, naming what is missing, and changes nothing; once the
// migrations have run (infra/'s Job) it starts and becomes ready. On Postgres, as deployed.
import { MIGRATIONS, migrateStore } from "@gatehouse/store";
import { DEFAULT_TEST_DATABASE_URL, dropSchema, randomSchemaName } from "@gatehouse/store/testing";
import { createSilentLogger } from "@gatehouse/telemetry";
import { describe, expect, it } from "vitest";
import { buildServer } from "../src/index.js";
import { stageSchema } from "./helpers.js";

const databaseUrl = process.env["DATABASE_URL"] ?? DEFAULT_TEST_DATABASE_URL;

describe("an engine that may not migrate", () => {
  it("refuses an unmigrated database, then starts once the migrations have run", async () => {
    const schema = randomSchemaName("gh_engine_verify");
    const engine = () => buildServer({ host: "127.0.0.1", port: 0, metricsPort: 0, schemaText: stageSchema, logger: createSilentLogger(), storeConfig: { databaseUrl, schema, migrations: "verify" } });
    try {
      await expect(engine().start()).rejects.toThrow(`lacks migrations ${MIGRATIONS.map((m) => m.version).join(", ")}`);
      expect(await migrateStore({ databaseUrl, schema })).toEqual(MIGRATIONS.map((m) => m.version));
      const server = engine();
      try {
        await server.start();
        expect(server.ready()).toBe(true);
      } finally {
        await server.stop();
      }
    } finally {
      await dropSchema(databaseUrl, schema);
    }
  });
});
