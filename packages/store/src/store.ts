// openStore: picks the backend (pg with DATABASE_URL, else embedded PGlite), applies migrations,
// and wires the repositories.
import type { StoreContext } from "./context.js";
import { feedChannel } from "./context.js";
import type { Db } from "./db/db.js";
import { validSchemaName } from "./db/db.js";
import type { PgOptions } from "./db/pg.js";
import type { PgliteOptions } from "./db/pglite.js";
import { StoreError } from "./errors.js";
import { changeFeed } from "./feed.js";
import { checkpointRepository } from "./repos/checkpoints.js";
import { FRESH_STORE_ID_SQL, migrate, migrationsKey, pendingMigrations } from "./migrations.js";
import { groupRepository } from "./repos/groups.js";
import { hostRepository } from "./repos/hosts.js";
import { placementRepository } from "./repos/placements.js";
import { replicatedRepository } from "./repos/replicated.js";
import { importRepository } from "./repos/imports.js";
import { principalRepository } from "./repos/principals.js";
import { relationshipRepository } from "./repos/relationships.js";
import { roleBindingRepository } from "./repos/role-bindings.js";
import { roleRepository } from "./repos/roles.js";
import { roleConfigRepository } from "./repos/role-config.js";
import { tenantRepository } from "./repos/tenants.js";
import { v1Repository } from "./repos/v1.js";
import { v1WriteRepository } from "./repos/v1-writes.js";
import { orgModeRepository } from "./repos/org-mode.js";
import { auditLogRepository } from "./repos/audit-log.js";
import { crossAccountRepository } from "./repos/cross-account.js";
import { workspaceRepository } from "./repos/workspaces.js";
import { RevisionNumbering } from "./revisions.js";
import { tokenCodec } from "./tokens.js";
import type { FollowHandle, Store, StoreConfig } from "./types.js";
import { DEFAULT_MAX_DEPTH } from "@gatehouse/evaluator";

/**
 * Deepest workspace nesting allowed. A check on the deepest workspace walks every parent edge plus
 * the binding → role → permission hops; the evaluator stops at DEFAULT_MAX_DEPTH dispatches, so
 * this keeps a wide margin below it (past ~45 levels checks fail and lists lose workspaces).
 */
export const MAX_WORKSPACE_DEPTH_LIMIT = Math.min(32, DEFAULT_MAX_DEPTH - 16);

async function assertMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length === 0) return;
  throw new StoreError(
    "unavailable",
    `The database schema '${db.schema}' lacks migration${pending.length === 1 ? "" : "s"} ${pending.join(", ")} of this release: run the migrations first (\`migrateStore\`, the deployment's migrations Job), or let the process apply them at start.`,
  );
}

// Each driver is loaded when a store first opens on it: a process (or an engine thread, which opens
// no store of its own) never parses the one it does not use (about 8 MiB of memory and 40 ms each).
const openPg = async (options: PgOptions): Promise<Db> => (await import("./db/pg.js")).openPg(options);
const openPglite = async (options: PgliteOptions): Promise<Db> => (await import("./db/pglite.js")).openPglite(options);

/** Applies the missing migrations and closes the connection: what a migrations Job runs once per release. */
export async function migrateStore(config: Pick<StoreConfig, "databaseUrl" | "schema" | "dataDir"> = {}): Promise<number[]> {
  const schema = config.schema ?? "public";
  if (!validSchemaName(schema)) throw new StoreError("invalid-argument", `Invalid schema name '${schema}'.`, "schema");
  const db: Db = config.databaseUrl ? await openPg({ databaseUrl: config.databaseUrl, schema, poolSize: 1 }) : await openPglite({ schema, ...(config.dataDir ? { dataDir: config.dataDir } : {}) });
  try {
    return await migrate(db);
  } finally {
    await db.close();
  }
}

export async function openStore(config: StoreConfig = {}): Promise<Store> {
  const schema = config.schema ?? "public";
  if (!validSchemaName(schema)) throw new StoreError("invalid-argument", `Invalid schema name '${schema}'.`, "schema");
  const depthLimit = config.workspaceDepthLimit ?? 5;
  if (!Number.isInteger(depthLimit) || depthLimit < 1 || depthLimit > MAX_WORKSPACE_DEPTH_LIMIT) {
    throw new StoreError("invalid-argument", `workspaceDepthLimit must be an integer from 1 to ${MAX_WORKSPACE_DEPTH_LIMIT}.`);
  }
  const domain = config.domain ?? "redhat";
  if (!/^[A-Za-z0-9_.-]+$/.test(domain)) throw new StoreError("invalid-argument", `Invalid domain '${domain}'.`, "domain");

  if (config.readDatabaseUrl !== undefined && !config.databaseUrl) {
    throw new StoreError("invalid-argument", "readDatabaseUrl needs databaseUrl (the primary).", "readDatabaseUrl");
  }
  const db: Db = config.databaseUrl
    ? await openPg({ databaseUrl: config.databaseUrl, schema, poolSize: config.poolSize ?? 10 })
    : await openPglite({
        schema,
        ...(config.dataDir ? { dataDir: config.dataDir } : {}),
        // Test runs open hundreds of in-memory stores: they start from one migrated copy (pglite.ts).
        ...(config.migrations === "verify" ? {} : { seed: { key: `${schema}-${migrationsKey()}`, prepare: async (db: Db) => void (await migrate(db)), onCopy: FRESH_STORE_ID_SQL } }),
      });
  const readDb: Db = config.readDatabaseUrl ? await openPg({ databaseUrl: config.readDatabaseUrl, schema, poolSize: config.readPoolSize ?? 4, name: "read" }) : db;
  const closeAll = async () => {
    if (readDb !== db) await readDb.close();
    await db.close();
  };
  try {
    if (config.migrations === "verify") await assertMigrated(db);
    else await migrate(db);
    const [meta] = await db.query<{ value: string }>("SELECT value FROM gh_meta WHERE key = 'store_id'");
    const storeId = meta!.value;
    const channel = feedChannel(schema);
    const revisions = new RevisionNumbering(db, channel);
    const ctx: StoreContext = {
      db,
      readDb,
      domain,
      platformId: config.platformId ?? "local",
      depthLimit,
      pollIntervalMs: config.pollIntervalMs ?? 1000,
      storeId,
      channel,
      tokens: tokenCodec(storeId),
      revisions,
      now: config.now ?? Date.now,
    };
    // Entries whose writer died after committing are numbered within about two poll intervals.
    revisions.startSweep(ctx.pollIntervalMs);
    const followers = new Set<FollowHandle>();
    return {
      backend: db.backend,
      storeId,
      domain,
      tenants: tenantRepository(ctx),
      workspaces: workspaceRepository(ctx),
      roles: roleRepository(ctx),
      roleConfig: roleConfigRepository(ctx),
      roleBindings: roleBindingRepository(ctx),
      groups: groupRepository(ctx),
      principals: principalRepository(ctx),
      hosts: hostRepository(ctx),
      placements: placementRepository(ctx),
      replicated: replicatedRepository(ctx),
      relationships: relationshipRepository(ctx),
      imports: importRepository(ctx),
      v1: v1Repository(ctx),
      v1Writes: v1WriteRepository(ctx),
      orgMode: orgModeRepository(ctx),
      auditLog: auditLogRepository(ctx),
      crossAccount: crossAccountRepository(ctx),
      checkpoints: checkpointRepository(ctx, { partBytes: config.checkpointPartBytes }),
      feed: changeFeed(ctx, followers),
      tokens: ctx.tokens,
      async close() {
        await Promise.all([...followers].map((f) => f.stop()));
        await revisions.close();
        await closeAll();
      },
    };
  } catch (e) {
    await closeAll().catch(() => undefined);
    throw e;
  }
}
