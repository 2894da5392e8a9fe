/**
 * The SQLite backend: one database file through kysely's `SqliteDialect` over better-sqlite3.
 *
 * PRAGMAs, set on open:
 * - `journal_mode=WAL`: readers never block the writer and a commit is one append to the WAL.
 * - `synchronous=NORMAL`: in WAL mode a commit is handed to the OS (write(2)) before it returns,
 *   and only checkpoints are fsynced. A committed transaction therefore survives the process being
 *   killed (SIGKILL, crash) because the OS still holds the bytes; only an OS crash or power loss
 *   can lose the last few commits. That is the durability DESIGN section 6 asks for ("a crash
 *   (SIGKILL) loses no event whose response went out") at a fraction of FULL's fsync per commit.
 * - `busy_timeout=20`: another process holding the write lock (e.g. `adx migrate` beside a
 *   running server, a backup tool, a sibling `serve --workers` process) is waited for up to 20 ms,
 *   then SQLITE_BUSY, which `busy-retry.ts` retries after asynchronous pauses for up to 5 s. better-sqlite3
 *   waits synchronously, freezing the event loop, so a long timeout would make every request late
 *   while the file is locked; a short one turns a locked file into a fast failure (bid requests
 *   then answer 503 and `/readyz` goes red, DESIGN section 2).
 * - `foreign_keys=ON`: SQLite leaves foreign keys off by default; deleting a publisher relies on
 *   `ON DELETE CASCADE` to remove its keys.
 * - `wal_autocheckpoint=0` (files only): checkpoints run on a worker thread with its own
 *   connection (`checkpointer.ts`), never inside a commit on the event loop (issue 15).
 *
 * better-sqlite3 is synchronous: each query blocks the event loop for its duration. Callers keep
 * the bid path off it by caching reads in memory and batching writes (`storage/group-commit.ts`).
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator } from 'kysely';
import type { Store } from '../ports.js';
import { createQueryStores } from '../queries/index.js';
import type { Database } from '../schema.js';
import { BusyRetrySqliteDialect } from './busy-retry.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { sqliteMigrationProvider } from './migrations/index.js';

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** Database file path (relative to the working directory or absolute), or `:memory:`. */
  path: string;
  /**
   * Where WAL checkpoints run: `worker` (default for files) a worker thread with its own
   * connection, `inline` SQLite's automatic checkpoint inside the commit that fills the WAL
   * (`:memory:` has no WAL and always uses this).
   */
  checkpoints?: 'worker' | 'inline';
  /** Reports a failed background checkpoint (default: ignored; the next one is tried). */
  onCheckpointError?: (message: string) => void;
}

/**
 * A SQLite `Store`. `db` is the underlying kysely instance, for modules of this backend that
 * need tables beyond the ports (keep SQL in query modules, not in callers).
 */
export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  readonly db: Kysely<Database>;
}

/**
 * Opens (creating when missing, with its parent directory) the SQLite database at `path` and
 * answers a `Store` over it. Migrations are not run: call `migrate()`. Rejects when the file
 * cannot be opened (permissions, not a database).
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const { path } = options;
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) await mkdir(dirname(path), { recursive: true });

  const sqlite = new BetterSqlite3(path);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 20');
    sqlite.pragma('foreign_keys = ON');
  } catch (error) {
    sqlite.close();
    throw error;
  }
  let checkpointer: Checkpointer | undefined;
  if (!inMemory && (options.checkpoints ?? 'worker') === 'worker') {
    sqlite.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer({ path, onError: options.onCheckpointError });
  }

  // kysely's SQLite driver prepares every query again; the bid path and the dispatcher run the
  // same few statements thousands of times a second, so prepared statements are cached by SQL
  // text (bounded: multi-row inserts make one text per batch size). Safe because the driver
  // runs one query at a time on this connection and never iterates a statement lazily.
  const statements = new Map<string, BetterSqlite3.Statement>();
  const database = {
    close: () => sqlite.close(),
    prepare(sqlText: string): BetterSqlite3.Statement {
      // kysely opens transactions with a deferred `begin`: a transaction that reads and then writes
      // fails at once with SQLITE_BUSY (no busy wait) when another process committed in between,
      // which `serve --workers N` makes routine. `begin immediate` takes the write lock first, so
      // a second process waits (busy_timeout) instead. One process: no difference.
      if (sqlText === 'begin') sqlText = 'begin immediate';
      let statement = statements.get(sqlText);
      if (statement === undefined) {
        statement = sqlite.prepare(sqlText);
        if (statements.size >= 500) statements.clear();
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
  const db = new Kysely<Database>({ dialect: new BusyRetrySqliteDialect({ database }, sqlite) });
  const queries = createQueryStores(db, { supportsSkipLocked: false });
  let closed = false;

  return {
    kind: 'sqlite',
    db,
    ...queries,

    async migrate(): Promise<void> {
      const migrator = new Migrator({ db, provider: sqliteMigrationProvider });
      const { error, results } = await migrator.migrateToLatest();
      if (error !== undefined) {
        const failed = results?.find((r) => r.status === 'Error')?.migrationName;
        throw new Error(`SQLite migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
    },

    /**
     * Rejects unless the file can be written: takes the write lock (`BEGIN IMMEDIATE`) and rolls
     * back at once. Fails fast (after `busy_timeout`): a health probe must not wait out another
     * process's lock the way queries do (busy-retry.ts), so it runs on the raw connection while it
     * holds kysely's connection (no transaction of ours is open then).
     */
    async ping(): Promise<void> {
      await db.connection().execute(async () => {
        sqlite.exec('begin immediate');
        sqlite.exec('rollback');
      });
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      // The worker's connection closes first, so ours is the last one: closing it checkpoints
      // the WAL into the database file and removes it.
      await checkpointer?.stop();
      await db.destroy();
      // kysely closes the database only once its driver has initialized (first query).
      if (sqlite.open) sqlite.close();
    },
  };
}
