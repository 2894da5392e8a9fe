/**
 * Runs the storage contract suite on PostgreSQL (`TEST_DATABASE_URL`): each test gets a fresh
 * schema with a random name, created by `migrate()` and dropped (`drop schema ... cascade`) in
 * cleanup. Also covers what is PostgreSQL's own: URL parsing, concurrent migrations, and the
 * leader locks (`storage/postgres/leader.ts`). Skipped, visibly, without `TEST_DATABASE_URL`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open-store.js';
import { parsePostgresUrl } from '../../src/storage/postgres/connection.js';
import type { Store } from '../../src/storage/ports.js';
import { openPostgresStore, type PostgresStore } from '../../src/storage/postgres/index.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations/index.js';
import { createLocalLeaderLock, createPgLeaderLock, leaderLockFor } from '../../src/storage/postgres/leader.js';
import { defineStoreContract } from './store-contract.js';

const url = process.env.TEST_DATABASE_URL;
if (!url) console.warn('TEST_DATABASE_URL not set: PostgreSQL contract suite skipped');

/** A schema name no other run uses. */
const freshSchema = (): string => `adx_test_${randomBytes(6).toString('hex')}`;

/** One admin pool per file, for dropping schemas and inspecting the server. */
let admin: pg.Pool | undefined;
const adminPool = (): pg.Pool => (admin ??= new pg.Pool({ connectionString: url, max: 2 }));
const dropSchema = async (schema: string): Promise<void> => {
  await adminPool().query(`drop schema if exists "${schema}" cascade`);
};

afterAll(async () => {
  await admin?.end();
});

if (url) {
  defineStoreContract('postgres', async () => {
    const schema = freshSchema();
    const store = await openPostgresStore({ url, schema });
    const peers: Store[] = [];
    return {
      store,
      openPeer: async () => {
        const peer = await openPostgresStore({ url, schema });
        peers.push(peer);
        return peer;
      },
      cleanup: async () => {
        for (const peer of peers) await peer.close();
        await store.close();
        await dropSchema(schema);
      },
    };
  });
} else {
  describe.skip('store contract: postgres (TEST_DATABASE_URL not set)', () => {
    it('needs TEST_DATABASE_URL', () => undefined);
  });
}

describe('parsePostgresUrl', () => {
  it('takes the schema out of the URL and sets search_path through the startup options', () => {
    expect(parsePostgresUrl('postgres://u:p@db.example:5432/adx?schema=adx_blue&sslmode=disable')).toEqual({
      connectionString: 'postgres://u:p@db.example:5432/adx?sslmode=disable',
      schema: 'adx_blue',
      options: '-c search_path=adx_blue',
    });
  });

  it('keeps a URL without schema as it is, and lets the option win over the URL', () => {
    expect(parsePostgresUrl('postgresql://db.example/adx')).toEqual({ connectionString: 'postgresql://db.example/adx', schema: undefined, options: undefined });
    expect(parsePostgresUrl('postgres://db.example/adx?schema=a', 'b').schema).toBe('b');
  });

  it('merges the URL options with the schema', () => {
    expect(parsePostgresUrl('postgres://db.example/adx?options=-c%20statement_timeout%3D5000&schema=s').options).toBe('-c statement_timeout=5000 -c search_path=s');
  });

  it('refuses a schema that is not a plain identifier', () => {
    expect(() => parsePostgresUrl('postgres://db.example/adx?schema=a;drop')).toThrow(/plain identifier/);
    expect(() => parsePostgresUrl('postgres://db.example/adx', '1abc')).toThrow(/plain identifier/);
    expect(() => parsePostgresUrl('postgres://db.example/adx', 'x'.repeat(64))).toThrow(/plain identifier/);
  });
});

describe('createLocalLeaderLock', () => {
  it('is always the leader until released', async () => {
    const lock = createLocalLeaderLock();
    expect(await lock.isLeader()).toBe(true);
    expect(await lock.isLeader()).toBe(true);
    await lock.release();
    expect(await lock.isLeader()).toBe(false);
    await lock.release();
  });
});

describe.skipIf(!url)('PostgreSQL store', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  /** A store on a fresh schema, closed and dropped after the file's tests. */
  const openFresh = async (schema = freshSchema()): Promise<PostgresStore> => {
    const store = await openPostgresStore({ url: url!, schema });
    cleanups.push(async () => {
      await store.close();
      await dropSchema(schema);
    });
    return store;
  };

  it('openStore opens PostgreSQL for a postgres:// URL with ?schema=, and the tables land in that schema', async () => {
    const schema = freshSchema();
    const separator = url!.includes('?') ? '&' : '?';
    const store = await openStore(`${url}${separator}schema=${schema}`);
    cleanups.push(async () => {
      await store.close();
      await dropSchema(schema);
    });
    expect(store.kind).toBe('postgres');
    await store.migrate();
    const { rows } = await adminPool().query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1 order by table_name', [schema]);
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['publishers', 'publisher_keys', 'demand_partners', 'bids', 'notices', 'counters', 'settings', 'webhook_endpoints', 'outbox_messages', 'delivery_attempts', 'alert_rules', 'alert_states', 'revenue_milestones', 'report_deliveries']),
    );
  });

  it('nodes migrating the same schema together all succeed and apply each migration once', async () => {
    const schema = freshSchema();
    const stores = await Promise.all([0, 1, 2, 3].map(() => openFresh(schema)));
    await Promise.all(stores.map((s) => s.migrate()));
    const { rows } = await adminPool().query<{ name: string }>(`select name from "${schema}".kysely_migration order by name`);
    expect(rows.map((r) => r.name)).toEqual(Object.keys(postgresMigrations).sort());
    await stores[0]!.settings.set('k', 'v');
    expect(await stores[3]!.settings.get('k')).toBe('v');
  });

  it('reads bigint columns as numbers (int8 parsed per pool, not globally)', async () => {
    const store = await openFresh();
    await store.migrate();
    const { rows } = await store.pool.query<{ n: unknown }>('select 9000000000000::bigint as n');
    expect(rows[0]?.n).toBe(9_000_000_000_000);
    const { rows: plain } = await adminPool().query<{ n: unknown }>('select 1::bigint as n');
    expect(plain[0]?.n).toBe('1');
  });

  it('refuses a pool smaller than 2 connections and a bad schema name', async () => {
    await expect(openPostgresStore({ url: url!, poolSize: 1 })).rejects.toThrow(/poolSize/);
    await expect(openPostgresStore({ url: url!, schema: 'bad-name' })).rejects.toThrow(/plain identifier/);
  });

  it('ping rejects when the server is unreachable', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const store = await openPostgresStore({ url: 'postgres://postgres@127.0.0.1:1/none', connectTimeoutMs: 500, pingTimeoutMs: 1000 });
    await expect(store.ping()).rejects.toThrow();
    await store.close();
  });
});

describe.skipIf(!url)('PostgreSQL leader lock', () => {
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
  });
  const newPool = (): pg.Pool => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const lockName = () => `adx-test-leader-${randomBytes(6).toString('hex')}`;

  it('two locks on one name on two pools: exactly one leader; release hands over', async () => {
    const name = lockName();
    const a = createPgLeaderLock(newPool(), name);
    const b = createPgLeaderLock(newPool(), name);
    const [leaderA, leaderB] = await Promise.all([a.isLeader(), b.isLeader()]);
    expect([leaderA, leaderB].filter(Boolean)).toHaveLength(1);
    const [holder, other] = leaderA ? [a, b] : [b, a];
    // Stable: asking again changes nothing.
    expect(await holder.isLeader()).toBe(true);
    expect(await other.isLeader()).toBe(false);
    await holder.release();
    expect(await holder.isLeader()).toBe(false);
    expect(await other.isLeader()).toBe(true);
    await other.release();
  });

  it('different names do not exclude each other', async () => {
    const pool = newPool();
    const a = createPgLeaderLock(pool, lockName());
    const b = createPgLeaderLock(pool, lockName());
    expect(await a.isLeader()).toBe(true);
    expect(await b.isLeader()).toBe(true);
    await Promise.all([a.release(), b.release()]);
  });

  it('a leader whose connection dies loses the lock to another node, and re-acquires it later on a new connection', async () => {
    const name = lockName();
    const poolA = newPool();
    const a = createPgLeaderLock(poolA, name, { verifyIntervalMs: 0 });
    const b = createPgLeaderLock(newPool(), name, { verifyIntervalMs: 0 });
    expect(await a.isLeader()).toBe(true);
    expect(await b.isLeader()).toBe(false);
    // Kill A's session from outside, as a network cut or a server-side kill would.
    const killer = newPool();
    const { rows } = await killer.query<{ pid: number }>(
      "select pid from pg_locks where locktype = 'advisory' and granted and objid = (hashtextextended($1, 0) & 4294967295)::oid and classid = ((hashtextextended($1, 0) >> 32) & 4294967295)::oid",
      [name],
    );
    expect(rows).toHaveLength(1);
    await killer.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    // pg_terminate_backend only signals the backend: its session (and lock) ends a moment later.
    const until = Date.now() + 3000;
    while (!(await b.isLeader()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await b.isLeader()).toBe(true);
    expect(await a.isLeader()).toBe(false);
    await b.release();
    expect(await a.isLeader()).toBe(true);
    await a.release();
  });

  it('a store makes schema-scoped locks, releases them on close, and leaderLockFor picks the right kind', async () => {
    const schemaA = freshSchema();
    const schemaB = freshSchema();
    const storeA1 = await openPostgresStore({ url: url!, schema: schemaA });
    const storeA2 = await openPostgresStore({ url: url!, schema: schemaA });
    const storeB = await openPostgresStore({ url: url!, schema: schemaB });
    try {
      const a1 = leaderLockFor(storeA1, 'report.daily');
      const a2 = leaderLockFor(storeA2, 'report.daily');
      const b = leaderLockFor(storeB, 'report.daily');
      expect(await a1.isLeader()).toBe(true);
      expect(await a2.isLeader()).toBe(false);
      // Another schema is another exchange: its own leader.
      expect(await b.isLeader()).toBe(true);
      await storeA1.close();
      expect(await a1.isLeader()).toBe(false);
      expect(await a2.isLeader()).toBe(true);
    } finally {
      await Promise.all([storeA1.close(), storeA2.close(), storeB.close()]);
    }
    const local = leaderLockFor({ kind: 'sqlite' } as never, 'report.daily');
    expect(await local.isLeader()).toBe(true);
  });
});
