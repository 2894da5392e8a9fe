/**
 * The outbox claim statement as each dialect compiles it (no database: kysely's DummyDriver
 * answers no rows). The PostgreSQL backend relies on `supportsSkipLocked` putting
 * `FOR UPDATE SKIP LOCKED` on the claim subquery; SQLite must not get it (a syntax error there).
 */
import { describe, expect, it } from 'vitest';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { createOutboxQueries } from '../../src/storage/queries/outbox.js';
import type { Database } from '../../src/storage/schema.js';

function capture(kind: 'postgres' | 'sqlite'): { db: Kysely<Database>; statements: string[] } {
  const statements: string[] = [];
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => (kind === 'postgres' ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (kind === 'postgres' ? new PostgresIntrospector(k) : new SqliteIntrospector(k)),
      createQueryCompiler: () => (kind === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
    log: (event) => {
      statements.push(event.query.sql);
    },
  });
  return { db, statements };
}

describe('outbox claimDue SQL', () => {
  it('on PostgreSQL locks the due rows once in a materialized CTE with SKIP LOCKED, then updates those', async () => {
    const { db, statements } = capture('postgres');
    const outbox = createOutboxQueries(db, { supportsSkipLocked: true });
    await outbox.claimDue({ owner: 'node_a', nowMs: 1, limit: 10, leaseMs: 30_000, excludeEndpointIds: ['we_1'] });
    expect(statements).toHaveLength(1);
    const [statement = ''] = statements;
    expect(statement).toMatch(/^with "due" as materialized \(select "id" from "outbox_messages"/);
    expect(statement).toMatch(/limit \$\d+ for update skip locked\) update "outbox_messages" set/);
    expect(statement).toMatch(/"endpoint_id" not in/);
    expect(statement).toMatch(/returning \*$/);
  });

  it('has no row locking clause on SQLite', async () => {
    const { db, statements } = capture('sqlite');
    await createOutboxQueries(db, { supportsSkipLocked: false }).claimDue({ owner: 'node_a', nowMs: 1, limit: 10, leaseMs: 30_000 });
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toMatch(/for update|skip locked/i);
    expect(statements[0]).not.toMatch(/not in/);
  });
});
