/**
 * The partner fields `openrtb_version` and `gvl_vendor_id` and the publisher fields
 * `seller_type` and `is_confidential` (DESIGN sections 7 and 11) through the admin API: defaults,
 * round trips, PATCH (null clears the vendor id) and 400 problems naming the field; and migration
 * 005 giving rows made before it the defaults.
 */
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite/index.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations/index.js';
import { auth, createAdminHarness, type AdminHarness } from './helpers.js';

describe('privacy and sellers.json fields in the admin API', () => {
  let h: AdminHarness;
  beforeEach(async () => {
    h = await createAdminHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  const call = async (method: 'POST' | 'PATCH', url: string, payload: unknown) => {
    const res = await h.app.inject({ method, url, headers: auth, payload: payload as object });
    return { status: res.statusCode, body: res.json() };
  };

  it('demand partner: defaults 2.5 and null; set, patch and clear', async () => {
    const created = await call('POST', '/v1/demand-partners', { name: 'p', endpoint: 'http://127.0.0.1:9/x' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ openrtb_version: '2.5', gvl_vendor_id: null });
    const id = created.body.id;
    expect((await call('PATCH', `/v1/demand-partners/${id}`, { openrtb_version: '2.6', gvl_vendor_id: 755 })).body).toMatchObject({ openrtb_version: '2.6', gvl_vendor_id: 755 });
    expect((await call('PATCH', `/v1/demand-partners/${id}`, { gvl_vendor_id: null })).body).toMatchObject({ openrtb_version: '2.6', gvl_vendor_id: null });
    expect(await h.store.demandPartners.get(id)).toMatchObject({ openrtbVersion: '2.6', gvlVendorId: null });
  });

  it('demand partner: invalid values are 400 naming the field', async () => {
    for (const [field, value] of [
      ['openrtb_version', '3.0'],
      ['openrtb_version', 2.6],
      ['gvl_vendor_id', 0],
      ['gvl_vendor_id', 65536],
      ['gvl_vendor_id', 1.5],
      ['gvl_vendor_id', '11'],
    ] as const) {
      const res = await call('POST', '/v1/demand-partners', { name: 'p', endpoint: 'http://127.0.0.1:9/x', [field]: value });
      expect(res.status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
  });

  it('publisher: defaults PUBLISHER and false; set and patch; invalid is 400', async () => {
    const created = await call('POST', '/v1/publishers', { name: 'pub' });
    expect(created.body).toMatchObject({ seller_type: 'PUBLISHER', is_confidential: false });
    const id = created.body.id;
    expect((await call('PATCH', `/v1/publishers/${id}`, { seller_type: 'BOTH', is_confidential: true })).body).toMatchObject({ seller_type: 'BOTH', is_confidential: true });
    for (const [field, value] of [
      ['seller_type', 'publisher'],
      ['is_confidential', 1],
    ] as const) {
      const res = await call('PATCH', `/v1/publishers/${id}`, { [field]: value });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
  });

  it('migration 005 gives partners and publishers made before it the defaults', async () => {
    const path = `${h.dir}/upgrade.db`;
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(path) }) });
    const upTo004 = Object.fromEntries(Object.entries(sqliteMigrations).filter(([name]) => name < '005'));
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => upTo004 } }).migrateToLatest();
    expect(error).toBeUndefined();
    await db.insertInto('publishers').values({ id: 'pub_old', name: 'old', domain: null, domains: '[]', browser_access: 0, auction_type: 1, reserve_price_micros: 0, created_at_ms: 1, updated_at_ms: 1 }).execute();
    await db.insertInto('demand_partners').values({ id: 'dsp_old', name: 'old', endpoint: 'http://127.0.0.1:9', adapter: 'openrtb25', timeout_ms: 1000, gzip: 0, qps_limit: null, currency: 'USD', enabled: 1, created_at_ms: 1, updated_at_ms: 1 }).execute();
    await db.destroy();
    const store = await openSqliteStore({ path });
    try {
      await store.migrate();
      expect(await store.demandPartners.get('dsp_old')).toMatchObject({ openrtbVersion: '2.5', gvlVendorId: null });
      expect(await store.publishers.get('pub_old')).toMatchObject({ sellerType: 'PUBLISHER', isConfidential: false });
    } finally {
      await store.close();
    }
  });
});
