import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/admin/api-keys.js';
import { AdxError } from '../../src/domain/errors.js';
import { createAdminHarness, GRACE_SECONDS, type AdminHarness } from './helpers.js';

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

describe('publisher service', () => {
  let h: AdminHarness;
  beforeEach(async () => {
    h = await createAdminHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('creates with defaults, a pub_ id and a stored key', async () => {
    const { publisher, apiKey } = await h.publishers.create({ name: '  Example News ' });
    expect(publisher).toMatchObject({ name: 'Example News', domain: null, domains: [], browserAccess: false });
    expect(publisher.id).toMatch(/^pub_/);
    expect(publisher.createdAtMs).toBe(h.clock.now());
    expect(await h.store.publishers.findByKeyHash(hashApiKey(apiKey), h.clock.now())).toEqual(publisher);
    expect(await h.publishers.get(publisher.id)).toEqual(publisher);
    expect(h.changes.publishers).toBe(1);
  });

  it('normalizes host names and rejects URLs, listing every invalid field', async () => {
    const { publisher } = await h.publishers.create({ name: 'p', domain: 'Example.COM', domains: ['A.example.com', 'a.example.com', 'b.example'] });
    expect(publisher.domain).toBe('example.com');
    expect(publisher.domains).toEqual(['a.example.com', 'b.example']);

    const error = await adxError(() =>
      h.publishers.create({ name: '', domain: 'https://example.com/', domains: ['ok.example', 'example.com:8080'], browser_access: 'yes' as unknown as boolean }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.errors?.map((e) => e.field)).toEqual(['name', 'domain', 'domains[1]', 'browser_access']);
    expect(h.changes.publishers).toBe(1);
    expect(await h.publishers.list()).toHaveLength(1);
  });

  it('accepts the same name twice (names are not unique)', async () => {
    const a = await h.publishers.create({ name: 'Same' });
    const b = await h.publishers.create({ name: 'Same' });
    expect(a.publisher.id).not.toBe(b.publisher.id);
    expect((await h.publishers.list()).map((p) => p.name)).toEqual(['Same', 'Same']);
  });

  it('uses a given api key for seeding, rejecting a blank one', async () => {
    const { apiKey, publisher } = await h.publishers.create({ name: 'demo' }, { apiKey: 'demo-key-1' });
    expect(apiKey).toBe('demo-key-1');
    expect((await h.store.publishers.findByKeyHash(hashApiKey('demo-key-1'), h.clock.now()))?.id).toBe(publisher.id);
    expect((await adxError(() => h.publishers.create({ name: 'x' }, { apiKey: 'has space' }))).errors?.[0]?.field).toBe('api_key');
  });

  it('updates only the fields given and bumps updatedAtMs', async () => {
    const { publisher } = await h.publishers.create({ name: 'p', domain: 'example.com', domains: ['example.com'] });
    h.clock.advance(5000);
    const updated = await h.publishers.update(publisher.id, { browser_access: true, domain: null });
    expect(updated).toMatchObject({ name: 'p', domain: null, domains: ['example.com'], browserAccess: true });
    expect(updated.updatedAtMs).toBe(publisher.createdAtMs + 5000);
    expect(updated.createdAtMs).toBe(publisher.createdAtMs);
    expect(h.changes.publishers).toBe(2);

    // An empty patch (unknown fields only) writes nothing.
    h.clock.advance(5000);
    expect(await h.publishers.update(publisher.id, { color: 'red' } as never)).toEqual(updated);
    expect(h.changes.publishers).toBe(2);

    expect((await adxError(() => h.publishers.update(publisher.id, { name: null as unknown as string }))).errors).toEqual([
      { field: 'name', message: 'must be a non-empty string' },
    ]);
    expect((await adxError(() => h.publishers.update('pub_missing', { name: 'x' }))).code).toBe('not_found');
  });

  it('deletes the publisher and its keys', async () => {
    const { publisher, apiKey } = await h.publishers.create({ name: 'p' });
    await h.publishers.delete(publisher.id);
    expect((await adxError(() => h.publishers.get(publisher.id))).code).toBe('not_found');
    expect(await h.store.publishers.findByKeyHash(hashApiKey(apiKey), h.clock.now())).toBeUndefined();
    expect((await adxError(() => h.publishers.delete(publisher.id))).code).toBe('not_found');
  });

  it('rotates keys: the old key works until the grace period ends', async () => {
    const { publisher, apiKey: first } = await h.publishers.create({ name: 'p' });
    h.clock.advance(1000);
    const rotated = await h.publishers.rotateKey(publisher.id);
    expect(rotated.apiKey).not.toBe(first);
    expect(rotated.previousKeysExpireAtMs).toBe(h.clock.now() + GRACE_SECONDS * 1000);
    const find = (key: string) => h.store.publishers.findByKeyHash(hashApiKey(key), h.clock.now());

    expect((await find(first))?.id).toBe(publisher.id);
    expect((await find(rotated.apiKey))?.id).toBe(publisher.id);
    h.clock.set(rotated.previousKeysExpireAtMs - 1);
    expect((await find(first))?.id).toBe(publisher.id);
    h.clock.set(rotated.previousKeysExpireAtMs + 1);
    expect(await find(first)).toBeUndefined();
    expect((await find(rotated.apiKey))?.id).toBe(publisher.id);

    expect((await adxError(() => h.publishers.rotateKey('pub_missing'))).code).toBe('not_found');
  });
});
