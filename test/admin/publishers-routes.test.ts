import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/admin/api-keys.js';
import { auth, createAdminHarness, GRACE_SECONDS, type AdminHarness } from './helpers.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe('/v1/publishers', () => {
  let h: AdminHarness;
  beforeEach(async () => {
    h = await createAdminHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  const create = (payload: unknown) => h.app.inject({ method: 'POST', url: '/v1/publishers', headers: auth, payload: payload as object });

  it('creates: 201 with the whole resource and the api_key, shown once', async () => {
    const res = await create({ name: 'Example News', domain: 'example.com', domains: ['example.com'], browser_access: true, extra: 'ignored' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: body.id,
      name: 'Example News',
      domain: 'example.com',
      domains: ['example.com'],
      browser_access: true,
      auction_type: 1,
      reserve_price: 0,
      seller_type: 'PUBLISHER',
      is_confidential: false,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      api_key: body.api_key,
    });
    expect(body.id).toMatch(/^pub_/);
    expect(body.api_key).toMatch(/^adxk_/);

    const got = await h.app.inject({ method: 'GET', url: `/v1/publishers/${body.id}`, headers: auth });
    expect(got.statusCode).toBe(200);
    expect(got.json()).not.toHaveProperty('api_key');
    const { api_key: _key, ...resource } = body;
    expect(got.json()).toEqual(resource);

    const list = await h.app.inject({ method: 'GET', url: '/v1/publishers', headers: auth });
    expect(list.json()).toEqual({ data: [resource] });
    expect(list.body).not.toContain(body.api_key);
  });

  it('applies defaults', async () => {
    const res = await create({ name: 'Minimal' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ domain: null, domains: [], browser_access: false });
    expect(res.json().created_at).toMatch(ISO_UTC);
  });

  it('stores the key hashed, never in clear', async () => {
    const { id, api_key: apiKey } = (await create({ name: 'p' })).json();
    const rows = await h.store.db.selectFrom('publisher_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ publisher_id: id, key_hash: hashApiKey(apiKey), prefix: apiKey.slice(0, 12) });
    expect(Object.values(rows[0] as object)).not.toContain(apiKey);
    // No table anywhere holds the key: checkpoint the WAL, then scan the database file's bytes.
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(h.store.db);
    for (const file of [h.dbPath, `${h.dbPath}-wal`]) {
      if (existsSync(file)) expect((await readFile(file)).includes(Buffer.from(apiKey))).toBe(false);
    }
    expect((await readFile(h.dbPath)).includes(Buffer.from(hashApiKey(apiKey)))).toBe(true);
  });

  it('rotates the key: 201, the old key valid until the grace period ends', async () => {
    const { id, api_key: first } = (await create({ name: 'p' })).json();
    h.clock.advance(60_000);
    const res = await h.app.inject({ method: 'POST', url: `/v1/publishers/${id}/keys`, headers: auth });
    expect(res.statusCode).toBe(201);
    const { api_key: second, previous_keys_expire_at: expiresAt } = res.json();
    expect(second).toMatch(/^adxk_/);
    expect(second).not.toBe(first);
    expect(expiresAt).toBe(new Date(h.clock.now() + GRACE_SECONDS * 1000).toISOString());

    const owner = async (key: string) => (await h.store.publishers.findByKeyHash(hashApiKey(key), h.clock.now()))?.id;
    expect(await owner(first)).toBe(id);
    expect(await owner(second)).toBe(id);
    h.clock.advance(GRACE_SECONDS * 1000 - 1000);
    expect(await owner(first)).toBe(id);
    h.clock.advance(2000);
    expect(await owner(first)).toBeUndefined();
    expect(await owner(second)).toBe(id);

    expect((await h.app.inject({ method: 'POST', url: '/v1/publishers/pub_missing/keys', headers: auth })).statusCode).toBe(404);
  });

  it('patches only the given fields', async () => {
    const { id } = (await create({ name: 'p', domain: 'example.com' })).json();
    h.clock.advance(1000);
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/publishers/${id}`, headers: auth, payload: { domains: ['Shop.Example.com'], browser_access: true } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, name: 'p', domain: 'example.com', domains: ['shop.example.com'], browser_access: true, updated_at: '2026-01-01T00:00:01.000Z' });
    expect((await h.app.inject({ method: 'GET', url: `/v1/publishers/${id}`, headers: auth })).json()).toEqual(res.json());
  });

  it('deletes: 204, then 404', async () => {
    const { id } = (await create({ name: 'p' })).json();
    const del = await h.app.inject({ method: 'DELETE', url: `/v1/publishers/${id}`, headers: auth });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    for (const [method, url] of [
      ['GET', `/v1/publishers/${id}`],
      ['DELETE', `/v1/publishers/${id}`],
      ['PATCH', `/v1/publishers/${id}`],
    ] as const) {
      const res = await h.app.inject({ method, url, headers: auth, payload: method === 'PATCH' ? { name: 'x' } : undefined });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ type: 'https://adx.dev/problems/not_found', status: 404 });
    }
  });

  it('answers 400 naming the field, for wrong types and wrong values', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 5 }, 'name'],
      [{ name: 'p', domains: 'example.com' }, 'domains'],
      [{ name: 'p', domains: ['https://example.com'] }, 'domains[0]'],
      [{ name: 'p', domain: 'example.com/path' }, 'domain'],
      [{ name: 'p', browser_access: 'true' }, 'browser_access'],
      [[], 'body'],
    ];
    for (const [payload, field] of cases) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = res.json();
      expect(body.type).toBe('https://adx.dev/problems/invalid_request');
      expect(body.errors.map((e: { field: string }) => e.field), JSON.stringify(payload)).toContain(field);
    }
    // A nullable field of the wrong type is one error naming it, not one per schema branch.
    expect((await create({ name: 'p', domain: 5 })).json().errors).toEqual([{ field: 'domain', message: 'must be string' }]);

    const { id } = (await create({ name: 'p' })).json();
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/publishers/${id}`, headers: auth, payload: { name: null } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain('name');
    expect(await h.publishers.list()).toHaveLength(1);
  });
});
