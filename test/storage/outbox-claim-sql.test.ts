/**
 * The outbox claim statement as each dialect compiles it (no database: kysely's DummyDriver
 * answers no rows). The PostgreSQL backend relies on `supportsSkipLocked` putting
 * `FOR UPDATE SKIP LOCKED` on the claim subquery; SQLite must not get it (a syntax error there).
 */
import { describe, expect, it } from 'vitest';
import { CompiledQuery } from 'kysely';
import { captureSql } from '../helpers/capture-sql.js';
import { createOutboxQueries } from '../../src/storage/queries/outbox.js';
import { openSqliteStore } from '../../src/storage/sqlite/index.js';

/** The SQL texts of the statements logged so far. */
const texts = (logged: ReadonlyArray<{ sql: string }>): string[] => logged.map((s) => s.sql);

describe('outbox claimDue SQL', () => {
  it('on PostgreSQL locks the due rows once in a materialized CTE with SKIP LOCKED, then updates those', async () => {
    const { db, statements: logged } = captureSql('postgres');
    const outbox = createOutboxQueries(db, { supportsSkipLocked: true });
    await outbox.claimDue({ owner: 'node_a', nowMs: 1, limit: 10, leaseMs: 30_000, excludeEndpointIds: ['we_1'] });
    const statements = texts(logged);
    expect(statements).toHaveLength(1);
    const [statement = ''] = statements;
    expect(statement).toMatch(/^with "due" as materialized \(select "id" from "outbox_messages"/);
    expect(statement).toMatch(/limit \$\d+ for update skip locked\) update "outbox_messages" set/);
    expect(statement).toMatch(/"endpoint_id" not in/);
    expect(statement).toMatch(/returning \*$/);
  });

  it('has no row locking clause on SQLite', async () => {
    const { db, statements: logged } = captureSql('sqlite');
    await createOutboxQueries(db, { supportsSkipLocked: false }).claimDue({ owner: 'node_a', nowMs: 1, limit: 10, leaseMs: 30_000 });
    const statements = texts(logged);
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toMatch(/for update|skip locked/i);
    expect(statements[0]).not.toMatch(/not in/);
  });

  it('on SQLite updates the picked rows by primary key, not by walking the due backlog again', async () => {
    const { db, statements: logged } = captureSql('sqlite');
    await createOutboxQueries(db, { supportsSkipLocked: false }).claimDue({ owner: 'node_a', nowMs: 1, limit: 10, leaseMs: 30_000, excludeEndpointIds: ['we_1'] });
    const statements = texts(logged);
    const store = await openSqliteStore({ path: ':memory:' });
    try {
      await store.migrate();
      const params = (statements[0]?.match(/\?/g) ?? []).map(() => 1);
      const plan = await store.db.executeQuery<{ id: number; parent: number; detail: string }>(CompiledQuery.raw(`explain query plan ${statements[0]}`, params));
      // The outer UPDATE is the plan's top-level row; the subquery's rows hang under it.
      const outer = plan.rows.filter((row) => row.parent === 0).map((row) => row.detail);
      expect(outer.some((detail) => /USING (COVERING )?INDEX sqlite_autoindex_outbox_messages_1 \(id=\?\)/.test(detail))).toBe(true);
      expect(outer.filter((detail) => /status_next_attempt/.test(detail))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
