import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, parseDatabaseUrl } from '../../src/storage/open-store.js';
import { createGroupCommitter } from '../../src/storage/group-commit.js';
import type { BidRecord } from '../../src/storage/ports.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';

const T0 = Date.UTC(2026, 0, 1);

function bid(bidId: string): BidRecord {
  return {
    bidId,
    auctionId: `auc-${bidId}`,
    requestId: 'req',
    impId: '1',
    publisherId: 'pub_1',
    partnerId: 'dsp_1',
    partnerRequestId: 'preq',
    partnerBidId: 'pbid',
    seat: 'seat',
    adId: null,
    partnerCurrency: 'USD',
    clearingPartnerMicros: 1_000_000,
    mbr: 1,
    partnerNurl: null,
    partnerBurl: null,
    createdAtMs: T0,
  };
}

describe('SQLite store', () => {
  let dir: string;
  const opened: SqliteStore[] = [];

  async function open(path = join(dir, 'adx.db')): Promise<SqliteStore> {
    const store = await openSqliteStore({ path });
    opened.push(store);
    return store;
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-sqlite-'));
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates missing parent directories', async () => {
    const path = join(dir, 'a', 'b', 'adx.db');
    const store = await open(path);
    await store.migrate();
    expect((await stat(path)).isFile()).toBe(true);
  });

  it('sets the PRAGMAs: WAL, synchronous NORMAL, busy timeout, foreign keys', async () => {
    const store = await open();
    const pragma = async (name: string) => {
      const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(store.db);
      return Object.values(rows[0] ?? {})[0];
    };
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1); // NORMAL
    expect(await pragma('busy_timeout')).toBe(20);
    expect(await pragma('foreign_keys')).toBe(1);
  });

  it('survives reopening the same file: data persists and migrations are not applied again', async () => {
    const path = join(dir, 'adx.db');
    const first = await open(path);
    await first.migrate();
    await first.settings.set('secret', 's3cr3t');
    await first.bids.insertMany([bid('bid_1')]);
    await first.counters.add([
      { publisherId: 'pub_1', minuteStartMs: T0, requests: 2, imps: 2, impsFilled: 1, bids: 1, wins: 0, impressions: 0, revenueGrossMicros: 0, revenueNetMicros: 0 },
    ]);
    await first.close();

    const second = await open(path);
    // Re-running migration 001 would fail on "table already exists"; migrate must skip it.
    await second.migrate();
    expect(await second.settings.get('secret')).toBe('s3cr3t');
    expect(await second.bids.get('bid_1')).toEqual(bid('bid_1'));
    expect((await second.counters.totals(T0, T0 + 60_000))[0]?.requests).toBe(2);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(second.db);
    expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(sqliteMigrations));
  });

  it('group commit over bids.insertMany: concurrent submits share one transaction and are all stored', async () => {
    const store = await open();
    await store.migrate();
    const batchSizes: number[] = [];
    const committer = createGroupCommitter<BidRecord[]>({
      write: async (groups) => {
        batchSizes.push(groups.length);
        await store.bids.insertMany(groups.flat());
      },
      maxDelayMs: 0,
    });
    const ids = Array.from({ length: 40 }, (_, i) => `bid_${i}`);
    await Promise.all(ids.map((id) => committer.submit([bid(id)])));
    expect(batchSizes).toEqual([40]);
    for (const id of ids) expect(await store.bids.get(id)).toEqual(bid(id));
    await committer.close();
  });

  it('works on :memory: for quick tests', async () => {
    const store = await open(':memory:');
    await store.migrate();
    await store.ping();
    expect(await store.settings.setIfAbsent('k', 'v')).toBe('v');
  });

  it('rejects when the file is not a database', async () => {
    const { writeFile } = await import('node:fs/promises');
    const path = join(dir, 'junk.db');
    await writeFile(path, 'this is not a sqlite file, just some text that is long enough to have a header'.repeat(20));
    await expect(openSqliteStore({ path })).rejects.toThrow();
  });
});

describe('openStore / parseDatabaseUrl', () => {
  it('maps file paths and sqlite:/file: URLs to SQLite paths', () => {
    expect(parseDatabaseUrl('./data/adx.db')).toEqual({ kind: 'sqlite', path: './data/adx.db' });
    expect(parseDatabaseUrl('sqlite:./data/adx.db')).toEqual({ kind: 'sqlite', path: './data/adx.db' });
    expect(parseDatabaseUrl('sqlite://data/adx.db')).toEqual({ kind: 'sqlite', path: 'data/adx.db' });
    expect(parseDatabaseUrl('file:data/adx.db')).toEqual({ kind: 'sqlite', path: 'data/adx.db' });
    expect(parseDatabaseUrl('file:///var/lib/adx.db')).toEqual({ kind: 'sqlite', path: '/var/lib/adx.db' });
    expect(parseDatabaseUrl(':memory:')).toEqual({ kind: 'sqlite', path: ':memory:' });
  });

  it('recognizes PostgreSQL URLs', () => {
    expect(parseDatabaseUrl('postgres://u:p@127.0.0.1/adx').kind).toBe('postgres');
    expect(parseDatabaseUrl('postgresql://127.0.0.1/adx').kind).toBe('postgres');
  });

  it('rejects an empty URL', () => {
    expect(() => parseDatabaseUrl('')).toThrow();
    expect(() => parseDatabaseUrl('sqlite:')).toThrow();
  });

  it('openStore opens a SQLite store from a sqlite: URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adx-open-'));
    try {
      const store = await openStore(`sqlite:${join(dir, 'x', 'adx.db')}`);
      try {
        expect(store.kind).toBe('sqlite');
        await store.migrate();
        await store.ping();
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
