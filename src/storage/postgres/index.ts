/**
 * The PostgreSQL backend: kysely's `PostgresDialect` over a `pg.Pool`, the shared portable query
 * modules (`storage/queries/`) with `FOR UPDATE SKIP LOCKED` claims, and migrations of its own
 * (`postgres/migrations/`). Several exchange nodes share one database (DESIGN sections 1 and 9).
 *
 * - Numbers: the pool parses `int8` into JS numbers (`connection.ts`, scoped to this pool).
 * - Schema: with `schema` (option or `?schema=` in the URL) every connection's `search_path` is that
 *   schema; `migrate()` creates it. Without, the server's default `search_path` applies.
 * - Migrations: `migrate()` holds a session advisory lock (one per schema) on one connection while
 *   kysely's migrator runs, so nodes starting together migrate once and the others wait, then find
 *   nothing to do. PostgreSQL DDL is transactional: a failed migration leaves nothing behind.
 * - Transactions: `writeAuction`, `notices.record` and the other multi-statement writes run in one
 *   transaction on one pooled connection (kysely), READ COMMITTED; their idempotency rests on
 *   primary keys with `ON CONFLICT DO NOTHING`, which is race-free across nodes.
 * - Claims: `outbox.claimDue` locks due rows with `FOR UPDATE SKIP LOCKED` in a materialized CTE
 *   and updates those (`queries/outbox.ts` with `supportsSkipLocked`):
 *   concurrent claimers on any node pass over each other's rows, and a claim is a lease that
 *   another node takes over once `claim_expires_at_ms` has passed.
 */
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Store } from '../ports.js';
import { createQueryStores } from '../queries/index.js';
import type { Database } from '../schema.js';
import { adxPgTypes, parsePostgresUrl, quoteIdentifier } from './connection.js';
import { createPgLeaderLock, type LeaderLock, type LeaderLockSource, type PgLeaderLockOptions } from './leader.js';
import { postgresMigrationProvider } from './migrations/index.js';

/** Options of `openPostgresStore`. */
export interface PostgresStoreOptions {
  /** `postgres://` or `postgresql://` URL; may carry `?schema=<name>` (see `connection.ts`). */
  url: string;
  /** PostgreSQL schema for adx's tables (wins over the URL's `schema`); default: the server's search_path. */
  schema?: string;
  /** Most connections in the pool (default 10; at least 2: `migrate()` holds one while the migrator uses another). */
  poolSize?: number;
  /** `ping()` rejects when `select 1` has not answered within this many ms (default 2000). */
  pingTimeoutMs?: number;
  /** A new connection that is not up within this many ms fails (default 5000). */
  connectTimeoutMs?: number;
  /** Called with errors of idle pooled connections (server restart, network cut); default: ignored, the next query reconnects. */
  onPoolError?: (error: Error) => void;
}

/**
 * A PostgreSQL `Store`. `db` and `pool` are the underlying kysely instance and `pg.Pool`, for
 * modules of this backend that need more than the ports (keep SQL in query modules, not callers).
 */
export interface PostgresStore extends Store, LeaderLockSource {
  readonly kind: 'postgres';
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  /** The schema from the options or URL, or undefined (server default). */
  readonly schema: string | undefined;
  /**
   * A cluster-wide leader lock for the job `name` (e.g. `report.daily`), scoped to this store's
   * schema so two exchanges sharing a database do not share leaders. `close()` releases it.
   */
  createLeaderLock(name: string, options?: PgLeaderLockOptions): LeaderLock;
}

/** Most connections by default: enough for concurrent requests plus the dispatcher and the leader locks. */
const DEFAULT_POOL_SIZE = 10;

/**
 * Answers a `Store` over the PostgreSQL database `options.url`. Connects lazily (the first query);
 * migrations are not run: call `migrate()`.
 * @throws Error when the schema name is not a plain identifier or `poolSize` is below 2.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const settings = parsePostgresUrl(options.url, options.schema);
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 2) throw new Error(`PostgreSQL poolSize must be an integer >= 2, got ${poolSize}`);
  const pingTimeoutMs = options.pingTimeoutMs ?? 2000;

  const pool = new pg.Pool({
    connectionString: settings.connectionString,
    ...(settings.options !== undefined ? { options: settings.options } : {}),
    max: poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    types: adxPgTypes,
  });
  // An idle client's error is emitted on the pool; unhandled, it would crash the process.
  pool.on('error', options.onPoolError ?? (() => undefined));

  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const queries = createQueryStores(db, { supportsSkipLocked: true });
  const leaderLocks = new Set<LeaderLock>();
  const lockNamespace = `adx:${settings.schema ?? ''}:`;
  let closed = false;

  return {
    kind: 'postgres',
    db,
    pool,
    schema: settings.schema,
    ...queries,

    async migrate(): Promise<void> {
      const client = await pool.connect();
      let broken: Error | undefined;
      // The client sits idle while the migrator works on other connections; an error it emits then
      // (connection cut) would crash the process without a listener.
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      try {
        // Session-level: held across the migrator's own connections and transaction until unlocked below.
        try {
          await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [`${lockNamespace}migrate`]);
        } catch (error) {
          broken = error instanceof Error ? error : new Error(String(error));
          throw error;
        }
        try {
          if (settings.schema !== undefined) await client.query(`create schema if not exists ${quoteIdentifier(settings.schema)}`);
          const current = await client.query<{ schema: string | null }>('select current_schema() as schema');
          const migrationTableSchema = settings.schema ?? current.rows[0]?.schema ?? 'public';
          // The schema is explicit: kysely otherwise looks for its bookkeeping tables in every schema.
          const migrator = new Migrator({ db, provider: postgresMigrationProvider, migrationTableSchema });
          const { error, results } = await migrator.migrateToLatest();
          if (error !== undefined) {
            const failed = results?.find((r) => r.status === 'Error')?.migrationName;
            throw new Error(`PostgreSQL migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
          }
        } finally {
          await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [`${lockNamespace}migrate`]).catch((error: unknown) => {
            broken = error instanceof Error ? error : new Error(String(error));
          });
        }
      } finally {
        // A connection whose unlock failed may still hold the lock: destroy it rather than pool it.
        client.removeListener('error', onError);
        client.release(broken);
      }
    },

    async ping(): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`PostgreSQL did not answer within ${pingTimeoutMs} ms`)), pingTimeoutMs);
      });
      try {
        await Promise.race([pool.query('select 1'), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },

    createLeaderLock(name: string, lockOptions?: PgLeaderLockOptions): LeaderLock {
      const lock = createPgLeaderLock(pool, `${lockNamespace}leader:${name}`, lockOptions);
      leaderLocks.add(lock);
      return {
        isLeader: () => (closed ? Promise.resolve(false) : lock.isLeader()),
        release: async () => {
          leaderLocks.delete(lock);
          await lock.release();
        },
      };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      // A held lock keeps its connection checked out, and the pool's end waits for every one.
      await Promise.all([...leaderLocks].map((lock) => lock.release()));
      leaderLocks.clear();
      await db.destroy();
    },
  };
}
