/**
 * The bid path's cache of publishers and partners (DESIGN section 7: a change is visible on its
 * node at once, elsewhere within 2 s): entries live 1 s; `invalidate()` drops them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createConfigCache } from '../../src/http/bid/config-cache.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';

const T0 = Date.UTC(2026, 0, 1);

describe('config cache', () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-cache-'));
    store = await openSqliteStore({ path: join(dir, 'adx.db') });
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const partner = (id: string, enabled = true) => ({
    id,
    name: id,
    endpoint: `http://127.0.0.1:9/${id}`,
    adapter: 'openrtb25',
    timeoutMs: 1000,
    gzip: false,
    qpsLimit: null,
    currency: 'USD',
    enabled,
    openrtbVersion: '2.5' as const,
    gvlVendorId: null,
    mediaTypes: ['banner', 'video', 'audio', 'native'] as Array<'banner' | 'video' | 'audio' | 'native'>,
    createdAtMs: T0,
    updatedAtMs: T0,
  });

  it('serves enabled partners from memory for 1 s, then reloads; invalidate() reloads at once', async () => {
    const clock = new ManualClock(T0);
    const cache = createConfigCache({ store, clock });
    await store.demandPartners.create(partner('dsp_a'));
    await store.demandPartners.create(partner('dsp_off', false));
    expect((await cache.enabledPartners()).map((p) => p.id)).toEqual(['dsp_a']);
    await store.demandPartners.create(partner('dsp_b'));
    expect((await cache.enabledPartners()).map((p) => p.id)).toEqual(['dsp_a']); // still cached
    clock.advance(1001);
    expect((await cache.enabledPartners()).map((p) => p.id).sort()).toEqual(['dsp_a', 'dsp_b']);
    await store.demandPartners.update('dsp_a', { enabled: false });
    cache.invalidate();
    expect((await cache.enabledPartners()).map((p) => p.id)).toEqual(['dsp_b']);
  });

  it('caches publishers by key hash, unknown keys included, and forgets them on invalidate()', async () => {
    const clock = new ManualClock(T0);
    const cache = createConfigCache({ store, clock });
    expect(await cache.publisherByKeyHash('h1')).toBeUndefined();
    await store.publishers.create(
      { id: 'pub_1', name: 'p', domain: null, domains: [], browserAccess: false, auctionType: 1, reservePriceMicros: 0, sellerType: 'PUBLISHER', isConfidential: false, createdAtMs: T0, updatedAtMs: T0 },
      { id: 'key_1', publisherId: 'pub_1', keyHash: 'h1', prefix: 'adxk_', createdAtMs: T0, expiresAtMs: null },
    );
    expect(await cache.publisherByKeyHash('h1')).toBeUndefined(); // the miss is cached too
    cache.invalidate();
    expect((await cache.publisherByKeyHash('h1'))?.id).toBe('pub_1');
    expect((await cache.publisherById('pub_1'))?.id).toBe('pub_1');
  });
});
