/**
 * Migration 006 (`demand_partners.media_types`): a partner stored before it reads every media
 * type afterwards (DESIGN section 7: default all four), on SQLite and on PostgreSQL (in a schema
 * of its own; skipped without `TEST_DATABASE_URL`).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStore, type PostgresStore } from '../../src/storage/postgres/index.js';
import { postgresMigrationProvider } from '../../src/storage/postgres/migrations/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';
import { sqliteMigrationProvider } from '../../src/storage/sqlite/migrations/index.js';

describe('migration 006-media-types (SQLite)', () => {
  let dir: string | undefined;
  let store: SqliteStore | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('gives partners stored before it all four media types', async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-mig-006-'));
    store = await openSqliteStore({ path: join(dir, 'adx.db') });
    const migrator = new Migrator({ db: store.db, provider: sqliteMigrationProvider });
    const before = await migrator.migrateTo('004-pricing');
    expect(before.error).toBeUndefined();
    await sql`insert into demand_partners (id, name, endpoint, adapter, timeout_ms, gzip, qps_limit, currency, enabled, created_at_ms, updated_at_ms)
      values ('dsp_old', 'Old DSP', 'http://127.0.0.1:9/bid', 'openrtb25', 1000, 0, null, 'USD', 1, 1, 1)`.execute(store.db);
    await store.migrate();
    expect((await store.demandPartners.get('dsp_old'))?.mediaTypes).toEqual(['banner', 'video', 'audio', 'native']);
  });
});

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('migration 006-media-types (PostgreSQL)', () => {
  it('gives partners stored before it all four media types', async () => {
    const schema = `adx_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    let store: PostgresStore | undefined;
    try {
      await admin.query(`create schema "${schema}"`);
      store = await openPostgresStore({ url: url!, schema });
      const migrator = new Migrator({ db: store.db, provider: postgresMigrationProvider, migrationTableSchema: schema });
      expect((await migrator.migrateTo('004-pricing')).error).toBeUndefined();
      await sql`insert into demand_partners (id, name, endpoint, adapter, timeout_ms, gzip, qps_limit, currency, enabled, created_at_ms, updated_at_ms)
        values ('dsp_old', 'Old DSP', 'http://127.0.0.1:9/bid', 'openrtb25', 1000, 0, null, 'USD', 1, 1, 1)`.execute(store.db);
      await store.migrate();
      expect((await store.demandPartners.get('dsp_old'))?.mediaTypes).toEqual(['banner', 'video', 'audio', 'native']);
    } finally {
      await store?.close();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  });
});
