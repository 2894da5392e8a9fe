/**
 * A kysely instance over a dialect's adapter and query compiler with kysely's DummyDriver (no
 * database; every query answers no rows) that logs each statement it would run: for tests of
 * the SQL a query module compiles, per dialect.
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

/** One logged statement: its SQL text and bound parameters. */
export interface CapturedStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** Answers the database and the list its statements are appended to, in execution order. */
export function captureSql(kind: 'postgres' | 'sqlite'): { db: Kysely<Database>; statements: CapturedStatement[] } {
  const statements: CapturedStatement[] = [];
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => (kind === 'postgres' ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (kind === 'postgres' ? new PostgresIntrospector(k) : new SqliteIntrospector(k)),
      createQueryCompiler: () => (kind === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
    log: (event) => {
      statements.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  return { db, statements };
}
