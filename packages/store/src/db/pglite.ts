// Embedded PGlite backend. PGlite has a single connection, so transactions (and the queries
// outside them) are serialized in-process with a mutex; a transaction then owns the connection.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Db, Queryable, Row, Subscription } from "./db.js";
import { quoteIdent } from "./db.js";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.js";
import { fromDriverError, StoreError } from "../errors.js";
import { tracedQuery } from "./tracing.js";

export interface PgliteOptions {
  dataDir?: string;
  schema: string;
  /**
   * What a fresh in-memory database should hold before its first use (the store: its migrations).
   * Under the template directory (below) the first process builds it once, keeps a copy named by
   * `key`, and later databases load that copy, then run `onCopy` (what each must hold of its own).
   * Without the directory, or with a data directory, nothing happens here: the caller migrates.
   */
  seed?: PgliteSeed;
}

export interface PgliteSeed {
  /** Names the contents (a hash of the migrations and the schema): a copy is reused only under the same key. */
  key: string;
  prepare(db: Db): Promise<void>;
  /** Statements run on each database loaded from the copy. */
  onCopy: string;
}

/** FIFO async mutex. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}

/** The PostgreSQL major of the embedded PGlite (0.5: PostgreSQL 18); a test checks it against a fresh data directory. */
export const EMBEDDED_POSTGRES_MAJOR = "18";

/**
 * A data directory holds one PostgreSQL major's files; PGlite opens another's only with an opaque
 * failure, so name the cause (e.g. a `.gatehouse-data/` written before the move from PGlite 0.3).
 */
export function assertDataDirMajor(dataDir: string): void {
  const file = join(dataDir, "PG_VERSION");
  if (!existsSync(file)) return;
  const major = readFileSync(file, "utf8").trim();
  if (major === EMBEDDED_POSTGRES_MAJOR) return;
  throw new StoreError(
    "unavailable",
    `The data directory ${dataDir} holds a PostgreSQL ${major.slice(0, 8)} database; the embedded PostgreSQL is ${EMBEDDED_POSTGRES_MAJOR} and cannot open it. Delete the directory to start over, or move the data with pg_dump from the older release.`,
  );
}

/**
 * Where fresh in-memory databases may start from a copy of an empty cluster instead of running
 * PostgreSQL's initdb each time (most of the cost of opening one: about 1.1 of 1.5 CPU seconds).
 * Test runs open hundreds of throw-away databases, so the shared test configuration sets this; the
 * first process that needs the copy writes it there (per PostgreSQL major, whose on-disk format it
 * is), and the others load it. Unset (the default), every in-memory database runs initdb.
 */
export const PGLITE_TEMPLATE_DIR_ENV = "GATEHOUSE_PGLITE_TEMPLATE_DIR";

/** Copies read or written by this process, by file name. */
const templates = new Map<string, Promise<Blob | null>>();

/** A fresh database from the copy in `file`, or null when there is none (or it is unreadable). */
async function loadCopy(file: string): Promise<PGlite | null> {
  let copy = templates.get(file);
  if (!copy) templates.set(file, (copy = Promise.resolve(readTemplate(file))));
  const blob = await copy;
  if (!blob) return null;
  try {
    return await PGlite.create({ loadDataDir: blob });
  } catch {
    // An unreadable copy: build the database as usual, and write a good one.
    templates.delete(file);
    return null;
  }
}

async function saveCopy(db: PGlite, file: string): Promise<void> {
  const written = writeTemplate(db, file);
  templates.set(file, written);
  await written;
}

async function createInMemory(): Promise<PGlite> {
  const dir = process.env[PGLITE_TEMPLATE_DIR_ENV];
  if (!dir) return PGlite.create();
  const file = join(dir, `empty-cluster-pg${EMBEDDED_POSTGRES_MAJOR}.tar`);
  const loaded = await loadCopy(file);
  if (loaded) return loaded;
  const db = await PGlite.create();
  await saveCopy(db, file);
  return db;
}

/** The seeded copy's file, when in-memory databases may start from one. */
function seedFile(o: PgliteOptions): string | null {
  const dir = process.env[PGLITE_TEMPLATE_DIR_ENV];
  if (!dir || !o.seed || o.dataDir) return null;
  const key = o.seed.key.replace(/[^A-Za-z0-9_-]/g, "_");
  return join(dir, `seeded-pg${EMBEDDED_POSTGRES_MAJOR}-${key}.tar`);
}

function readTemplate(file: string): Blob | null {
  try {
    return existsSync(file) ? new Blob([readFileSync(file)]) : null;
  } catch {
    return null;
  }
}

/** The empty cluster `db` is, for this process and (whole, by a rename) for the others. */
async function writeTemplate(db: PGlite, file: string): Promise<Blob | null> {
  try {
    const dump = await db.dumpDataDir("none");
    try {
      mkdirSync(dirname(file), { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
      renameSync(partial, file);
    } catch {
      // Not writable: this process's later databases still start from the copy in memory.
    }
    return dump;
  } catch {
    return null;
  }
}

export async function openPglite(o: PgliteOptions): Promise<Db> {
  const file = seedFile(o);
  const seeded = file ? await loadCopy(file) : null;
  if (seeded) {
    try {
      await seeded.exec(`SET search_path TO ${quoteIdent(o.schema)}, public; ${o.seed!.onCopy}`);
    } catch (e) {
      await seeded.close().catch(() => undefined);
      throw e;
    }
    return wrap(seeded, o, null);
  }
  let lock: DataDirLock | null = null;
  let db: PGlite;
  try {
    if (o.dataDir) {
      assertDataDirMajor(o.dataDir);
      mkdirSync(o.dataDir, { recursive: true });
      lock = lockDataDir(o.dataDir);
    }
    db = o.dataDir ? await PGlite.create(o.dataDir) : await createInMemory();
    await db.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(o.schema)}; SET search_path TO ${quoteIdent(o.schema)}, public;`);
  } catch (e) {
    lock?.release();
    throw e;
  }
  const wrapped = wrap(db, o, lock);
  if (file) {
    try {
      await o.seed!.prepare(wrapped);
      await saveCopy(db, file);
    } catch (e) {
      await wrapped.close().catch(() => undefined);
      throw e;
    }
  }
  return wrapped;
}

function wrap(db: PGlite, o: PgliteOptions, lock: DataDirLock | null): Db {
  const mutex = new Mutex();
  const raw: Queryable = {
    async query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> {
      try {
        return await tracedQuery("postgresql", o.schema, sql, async () => (await db.query<T>(sql, params)).rows);
      } catch (e) {
        throw fromDriverError(e);
      }
    },
  };

  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await mutex.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  async function inTransaction<T>(begin: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    await raw.query(begin);
    try {
      const value = await fn(raw);
      await raw.query("COMMIT");
      return value;
    } catch (e) {
      await raw.query("ROLLBACK").catch(() => undefined);
      throw fromDriverError(e);
    }
  }

  return {
    backend: "pglite",
    schema: o.schema,
    query: (sql, params) => exclusive(() => raw.query(sql, params)),
    transaction: (fn) => exclusive(() => inTransaction("BEGIN", fn)),
    async readTransaction() {
      const release = await mutex.acquire();
      try {
        await raw.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      } catch (e) {
        release();
        throw e;
      }
      let released = false;
      return {
        tx: raw,
        async release() {
          if (released) return;
          released = true;
          await raw.query("COMMIT").catch(() => undefined);
          release();
        },
      };
    },
    async listen(channel, onNotify): Promise<Subscription> {
      // In-process: the connection cannot be lost, so `onLost` never fires.
      const unlisten = await exclusive(() => db.listen(channel, onNotify));
      return { close: () => exclusive(() => unlisten()) };
    },
    async withLock(_lockKey, fn) {
      // One process owns the data directory, so the in-process mutex is the lock.
      return exclusive(() => fn(raw));
    },
    async close() {
      try {
        await exclusive(() => db.close());
      } finally {
        lock?.release();
      }
    },
  };
}
