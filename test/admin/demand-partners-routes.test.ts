import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auth, createAdminHarness, type AdminHarness } from './helpers.js';

describe('/v1/demand-partners', () => {
  let h: AdminHarness;
  beforeEach(async () => {
    h = await createAdminHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  const create = (payload: unknown) => h.app.inject({ method: 'POST', url: '/v1/demand-partners', headers: auth, payload: payload as object });

  it('creates with the defaults: 201 with the whole resource', async () => {
    const res = await create({ name: 'DSP A', endpoint: 'http://127.0.0.1:9001/openrtb' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: body.id,
      name: 'DSP A',
      endpoint: 'http://127.0.0.1:9001/openrtb',
      adapter: 'openrtb25',
      timeout_ms: 1000,
      gzip: false,
      qps_limit: null,
      currency: 'USD',
      enabled: true,
      openrtb_version: '2.5',
      gvl_vendor_id: null,
      media_types: ['banner', 'video', 'audio', 'native'],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(body.id).toMatch(/^dsp_/);
    expect((await h.app.inject({ method: 'GET', url: `/v1/demand-partners/${body.id}`, headers: auth })).json()).toEqual(body);
    expect((await h.app.inject({ method: 'GET', url: '/v1/demand-partners', headers: auth })).json()).toEqual({ data: [body] });
    expect(await h.store.demandPartners.get(body.id)).toMatchObject({ timeoutMs: 1000, qpsLimit: null, enabled: true });
  });

  it('keeps every given field and ignores unknown ones', async () => {
    const res = await create({
      name: 'DSP B',
      endpoint: 'https://dsp.example/bid',
      adapter: 'other',
      timeout_ms: 300,
      gzip: true,
      qps_limit: 1000,
      currency: 'EUR',
      enabled: false,
      unknown_field: { anything: 1 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ adapter: 'other', timeout_ms: 300, gzip: true, qps_limit: 1000, currency: 'EUR', enabled: false });
    expect(res.json()).not.toHaveProperty('unknown_field');
  });

  it('answers 400 naming the field', async () => {
    const base = { name: 'DSP', endpoint: 'http://127.0.0.1:9001/bid' };
    const cases: Array<[unknown, string]> = [
      [{ name: 'DSP' }, 'endpoint'],
      [{ ...base, endpoint: 'ftp://dsp.example/bid' }, 'endpoint'],
      [{ ...base, endpoint: 'dsp.example/bid' }, 'endpoint'],
      [{ ...base, endpoint: 42 }, 'endpoint'],
      [{ ...base, currency: 'usd' }, 'currency'],
      [{ ...base, currency: 'EURO' }, 'currency'],
      [{ ...base, timeout_ms: 0 }, 'timeout_ms'],
      [{ ...base, timeout_ms: 12.5 }, 'timeout_ms'],
      [{ ...base, timeout_ms: '500' }, 'timeout_ms'],
      [{ ...base, qps_limit: -1 }, 'qps_limit'],
      [{ ...base, qps_limit: '10' }, 'qps_limit'],
      [{ ...base, adapter: 'unknown' }, 'adapter'],
      [{ ...base, gzip: 'yes' }, 'gzip'],
      [{ ...base, enabled: 1 }, 'enabled'],
      [{ ...base, media_types: [] }, 'media_types'],
      [{ ...base, media_types: 'video' }, 'media_types'],
      [{ ...base, media_types: ['video', 'display'] }, 'media_types[1]'],
      [{ ...base, media_types: ['video', 'video'] }, 'media_types'],
    ];
    for (const [payload, field] of cases) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors.map((e: { field: string }) => e.field), JSON.stringify(payload)).toContain(field);
    }
    expect(await h.demandPartners.list()).toEqual([]);
    expect((await create({ ...base, qps_limit: null })).statusCode).toBe(201);
  });

  it('keeps media_types in canonical order and patches them', async () => {
    const res = await create({ name: 'Video DSP', endpoint: 'http://127.0.0.1:9001/bid', media_types: ['native', 'video'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().media_types).toEqual(['video', 'native']);
    const patched = await h.app.inject({ method: 'PATCH', url: `/v1/demand-partners/${res.json().id}`, headers: auth, payload: { media_types: ['audio'] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().media_types).toEqual(['audio']);
    expect((await h.store.demandPartners.get(res.json().id))?.mediaTypes).toEqual(['audio']);
  });

  it('patches, then deletes: 204 then 404', async () => {
    const { id } = (await create({ name: 'DSP', endpoint: 'http://127.0.0.1:9001/bid', qps_limit: 5 })).json();
    h.clock.advance(2000);
    const patched = await h.app.inject({ method: 'PATCH', url: `/v1/demand-partners/${id}`, headers: auth, payload: { enabled: false, qps_limit: null, timeout_ms: 200 } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id, name: 'DSP', enabled: false, qps_limit: null, timeout_ms: 200, updated_at: '2026-01-01T00:00:02.000Z', created_at: '2026-01-01T00:00:00.000Z' });

    const bad = await h.app.inject({ method: 'PATCH', url: `/v1/demand-partners/${id}`, headers: auth, payload: { currency: 'eur' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toContain('currency');

    expect((await h.app.inject({ method: 'DELETE', url: `/v1/demand-partners/${id}`, headers: auth })).statusCode).toBe(204);
    expect((await h.app.inject({ method: 'GET', url: `/v1/demand-partners/${id}`, headers: auth })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'DELETE', url: `/v1/demand-partners/${id}`, headers: auth })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'PATCH', url: `/v1/demand-partners/${id}`, headers: auth, payload: { enabled: true } })).statusCode).toBe(404);
  });
});
