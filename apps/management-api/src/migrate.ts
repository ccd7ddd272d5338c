// Migrations entry (`node dist/migrate.js`): applies the store's missing migrations and exits. A
// deployment runs it once per release, before the new pods, which then start with
// GATEHOUSE_MIGRATE_ON_START=false. Reads the management API's settings (DATABASE_URL, or a PGlite
// GATEHOUSE_DATA_DIR).
import { ConfigError } from "@gatehouse/config";
import { migrateStore } from "@gatehouse/store";
import { managementSettings } from "./config.js";

try {
  const env = managementSettings.parse(process.env);
  if (!env.DATABASE_URL && !env.GATEHOUSE_DATA_DIR) {
    // An in-memory database would be migrated and thrown away: say so instead of exiting 0.
    console.error("DATABASE_URL (or GATEHOUSE_DATA_DIR) is required: the database to apply the migrations to.");
    process.exit(2);
  }
  const applied = await migrateStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { dataDir: env.GATEHOUSE_DATA_DIR! });
  console.log(applied.length === 0 ? "migrations: the database is up to date" : `migrations: applied ${applied.join(", ")}`);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `migrations failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
