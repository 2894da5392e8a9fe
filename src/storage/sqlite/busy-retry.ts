/**
 * Waiting for another process's write lock without freezing the event loop (issue 15,
 * `serve --workers N`). better-sqlite3's `busy_timeout` waits synchronously, so it stays short
 * (20 ms, see index.ts); past it a statement fails with SQLITE_BUSY. With several processes on
 * one file that is routine under load (the lock holder may be descheduled), so this kysely driver
 * retries such a statement after an asynchronous pause (1, 2, 4 ... 20 ms) for up to `budgetMs`,
 * while the event loop serves other requests.
 *
 * Only statements that are safe to run again are retried: the connection must not be inside a
 * transaction after the failure (`inTransaction` false), i.e. an autocommit statement or the
 * transaction's own `begin immediate`, which failed as a whole. A statement inside a transaction
 * cannot meet SQLITE_BUSY for the write lock (BEGIN IMMEDIATE took it), so nothing else needs it.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/** True for SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, ...). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** A `SqliteDialect` whose connection retries SQLITE_BUSY asynchronously (see the module comment). */
export class BusyRetrySqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #sqlite: BetterSqlite3.Database;
  readonly #budgetMs: number;

  /** `sqlite` is the connection behind `config.database` (for `inTransaction`); `budgetMs` the longest retry, ms. */
  constructor(config: SqliteDialectConfig, sqlite: BetterSqlite3.Database, budgetMs = 5_000) {
    super(config);
    this.#config = config;
    this.#sqlite = sqlite;
    this.#budgetMs = budgetMs;
  }

  override createDriver(): Driver {
    const sqlite = this.#sqlite;
    const budgetMs = this.#budgetMs;
    class BusyRetryDriver extends SqliteDriver {
      override async acquireConnection(): Promise<DatabaseConnection> {
        const connection = await super.acquireConnection();
        return {
          async executeQuery(query) {
            const started = performance.now();
            for (let attempt = 0; ; attempt++) {
              try {
                // The driver throws synchronously; awaiting here turns that into a rejection we catch.
                return await connection.executeQuery(query);
              } catch (error) {
                if (!isBusy(error) || sqlite.inTransaction || performance.now() - started > budgetMs) throw error;
                await new Promise((resolve) => setTimeout(resolve, Math.min(20, 2 ** attempt)));
              }
            }
          },
          streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
        };
      }
    }
    return new BusyRetryDriver(this.#config);
  }
}
