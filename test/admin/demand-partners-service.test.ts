import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdxError } from '../../src/domain/errors.js';
import { createAdminHarness, type AdminHarness } from './helpers.js';

/** Runs `fn` and answers the AdxError it rejects with (fails the test otherwise). */
async function adxError(fn: () => Promise<unknown>): Promise<AdxError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AdxError);
    return error as AdxError;
  }
  throw new Error('expected an AdxError');
}

describe('demand partner service', () => {
  let h: AdminHarness;
  beforeEach(async () => {
    h = await createAdminHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('applies the DESIGN section 7 defaults', async () => {
    const partner = await h.demandPartners.create({ name: 'DSP', endpoint: 'http://127.0.0.1:9000/bid' });
    expect(partner).toEqual({
      id: partner.id,
      name: 'DSP',
      endpoint: 'http://127.0.0.1:9000/bid',
      adapter: 'openrtb25',
      timeoutMs: 1000,
      gzip: false,
      qpsLimit: null,
      currency: 'USD',
      enabled: true,
      openrtbVersion: '2.5',
      gvlVendorId: null,
      mediaTypes: ['banner', 'video', 'audio', 'native'],
      createdAtMs: h.clock.now(),
      updatedAtMs: h.clock.now(),
    });
    expect(partner.id).toMatch(/^dsp_/);
    expect(await h.demandPartners.get(partner.id)).toEqual(partner);
    expect(h.changes.demandPartners).toBe(1);
  });

  it('keeps given values', async () => {
    const partner = await h.demandPartners.create({
      name: 'DSP',
      endpoint: 'https://dsp.example/openrtb',
      adapter: 'other',
      timeout_ms: 250,
      gzip: true,
      qps_limit: 500,
      currency: 'EUR',
      enabled: false,
    });
    expect(partner).toMatchObject({ adapter: 'other', timeoutMs: 250, gzip: true, qpsLimit: 500, currency: 'EUR', enabled: false });
  });

  it('rejects invalid values, naming every field', async () => {
    const error = await adxError(() =>
      h.demandPartners.create({
        name: 'DSP',
        endpoint: 'ftp://dsp.example/',
        adapter: 'nope',
        timeout_ms: 1.5,
        gzip: 1 as unknown as boolean,
        qps_limit: 0,
        currency: 'usd',
        enabled: 'no' as unknown as boolean,
      }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.errors?.map((e) => e.field)).toEqual(['endpoint', 'adapter', 'timeout_ms', 'gzip', 'qps_limit', 'currency', 'enabled']);
    expect(error.errors?.find((e) => e.field === 'adapter')?.message).toBe('must be one of openrtb25, other');

    const missing = await adxError(() => h.demandPartners.create({} as never));
    expect(missing.errors?.map((e) => e.field)).toEqual(['name', 'endpoint']);
    for (const endpoint of ['not a url', '/relative', 'http://', 'javascript:alert(1)']) {
      expect((await adxError(() => h.demandPartners.create({ name: 'x', endpoint }))).errors?.[0]?.field).toBe('endpoint');
    }
    expect(await h.demandPartners.list()).toEqual([]);
    expect(h.changes.demandPartners).toBe(0);
  });

  it('updates, clears qps_limit with null, and deletes', async () => {
    const partner = await h.demandPartners.create({ name: 'DSP', endpoint: 'http://127.0.0.1:9000/bid', qps_limit: 10 });
    h.clock.advance(1000);
    const updated = await h.demandPartners.update(partner.id, { qps_limit: null, enabled: false });
    expect(updated).toMatchObject({ qpsLimit: null, enabled: false, name: 'DSP', updatedAtMs: partner.createdAtMs + 1000 });
    expect((await adxError(() => h.demandPartners.update(partner.id, { endpoint: 'nope' }))).errors?.[0]?.field).toBe('endpoint');
    expect((await adxError(() => h.demandPartners.update('dsp_missing', { enabled: true }))).code).toBe('not_found');

    await h.demandPartners.delete(partner.id);
    expect((await adxError(() => h.demandPartners.get(partner.id))).code).toBe('not_found');
    expect((await adxError(() => h.demandPartners.delete(partner.id))).code).toBe('not_found');
    expect(h.changes.demandPartners).toBe(3);
  });
});
