import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, auth, createAdminHarness, type AdminHarness } from './helpers.js';

describe('admin API auth', () => {
  let h: AdminHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const routes = [
    ['POST', '/v1/publishers'],
    ['GET', '/v1/publishers'],
    ['GET', '/v1/publishers/pub_1'],
    ['PATCH', '/v1/publishers/pub_1'],
    ['DELETE', '/v1/publishers/pub_1'],
    ['POST', '/v1/publishers/pub_1/keys'],
    ['POST', '/v1/demand-partners'],
    ['GET', '/v1/demand-partners'],
    ['GET', '/v1/demand-partners/dsp_1'],
    ['PATCH', '/v1/demand-partners/dsp_1'],
    ['DELETE', '/v1/demand-partners/dsp_1'],
  ] as const;

  it('answers 401 problem+json without a key, with a wrong key or a wrong scheme, on every route', async () => {
    h = await createAdminHarness();
    const headerSets = [{}, { authorization: 'Bearer wrong-key' }, { authorization: `Basic ${ADMIN_KEY}` }, { authorization: `Bearer ${ADMIN_KEY}x` }];
    for (const [method, url] of routes) {
      for (const headers of headerSets) {
        const res = await h.app.inject({ method, url, headers, payload: method === 'POST' || method === 'PATCH' ? { name: 'x' } : undefined });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(res.json()).toMatchObject({ type: 'https://adx.dev/problems/unauthorized', status: 401 });
      }
    }
    // Nothing was written by the refused calls.
    expect(await h.publishers.list()).toEqual([]);
  });

  it('accepts the right key (scheme case-insensitive)', async () => {
    h = await createAdminHarness();
    expect((await h.app.inject({ method: 'GET', url: '/v1/publishers', headers: auth })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: '/v1/publishers', headers: { authorization: `bearer ${ADMIN_KEY}` } })).statusCode).toBe(200);
  });

  it('refuses every call when the admin key is empty', async () => {
    h = await createAdminHarness({ adminKey: '' });
    for (const headers of [{}, { authorization: 'Bearer ' }, { authorization: 'Bearer x' }]) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/publishers', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toMatch(/disabled/);
    }
  });
});
