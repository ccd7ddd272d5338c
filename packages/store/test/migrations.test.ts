// Migrating once, apart from the processes: `migrateStore` applies what is missing (what a
// deployment's migrations Job runs), and a store opened with `migrations: "verify"` applies nothing
// and refuses a schema that lacks any migration of this release.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isStoreError, MIGRATIONS, migrateStore, openStore } from "../src/index.js";
import { dropSchema, randomSchemaName, testBackends } from "../src/testing.js";

const backends = await testBackends();
const ALL = MIGRATIONS.map((m) => m.version);

describe.each(backends)("migrations apart from start on $name", (backend) => {
  const databaseUrl = backend.name === "pg" ? backend.databaseUrl : undefined;
  const perBackend = databaseUrl ? { databaseUrl } : {};

  it("verify refuses a schema without migrations, naming them, and creates nothing", async () => {
    const schema = randomSchemaName("gh_verify");
    try {
      const opening = openStore({ ...perBackend, schema, migrations: "verify" });
      await expect(opening).rejects.toSatisfy((e: unknown) => isStoreError(e, "unavailable") && (e as Error).message.includes(`lacks migrations ${ALL.join(", ")}`));
      // Nothing was created: a later verify still finds every migration missing.
      await expect(openStore({ ...perBackend, schema, migrations: "verify" })).rejects.toThrow(/run the migrations first/);
    } finally {
      if (databaseUrl) await dropSchema(databaseUrl, schema);
    }
  });

  it("migrateStore applies every migration once; verify then opens the store", async () => {
    const schema = randomSchemaName("gh_migrate");
    // PGlite keeps an in-memory database only while it is open, so that backend migrates a data directory.
    const dataDir = databaseUrl ? undefined : await mkdtemp(join(tmpdir(), "gh-migrate-"));
    const target = databaseUrl ? { databaseUrl, schema } : { dataDir: dataDir! };
    try {
      expect(await migrateStore(target)).toEqual(ALL);
      expect(await migrateStore(target)).toEqual([]);
      const store = await openStore({ ...target, migrations: "verify" });
      try {
        expect(store.storeId).toMatch(/^[0-9a-f]{32}$/);
      } finally {
        await store.close();
      }
    } finally {
      if (databaseUrl) await dropSchema(databaseUrl, schema);
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    }
  });
});
