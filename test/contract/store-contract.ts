/**
 * The storage contract suite: what every backend of `Store` (storage/ports.ts) must do. A backend's
 * test file registers it with one line, e.g.
 * `defineStoreContract('sqlite', async () => { ... return { store, cleanup } })`.
 *
 * The factory answers a fresh, empty store (not yet migrated: the suite calls `migrate()`) and a
 * `cleanup` that closes it and removes what it created. `close()` may be called before cleanup,
 * so a backend's `close()` must be idempotent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord, CounterDelta, CounterTotals, DemandPartnerRecord, PublisherRecord, Store } from '../../src/storage/ports.js';
import { bid, notice, T0 } from './records.js';
import { defineReportingStoreContract } from './reporting-store-contract.js';
import { defineRevenueStoreContract } from './revenue-store-contract.js';
import { defineSeriesStoreContract } from './series-store-contract.js';
import { defineWebhookStoreContract } from './webhook-store-contract.js';

/** What a backend's test file supplies: a fresh store per call and how to dispose of it. */
export type StoreFactory = () => Promise<{
  store: Store;
  /** A second handle on the same database (another exchange node), where the backend has several; closed by `cleanup`. */
  openPeer?: () => Promise<Store>;
  cleanup: () => Promise<void>;
}>;

const MINUTE_MS = 60_000;

function publisher(id: string, overrides: Partial<PublisherRecord> = {}): PublisherRecord {
  return { id, name: `Publisher ${id}`, domain: null, domains: [], browserAccess: false, auctionType: 1, reservePriceMicros: 0, sellerType: 'PUBLISHER', isConfidential: false, createdAtMs: T0, updatedAtMs: T0, ...overrides };
}

function apiKey(id: string, publisherId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return { id, publisherId, keyHash: `hash-${id}`, prefix: `adxk_${id}`, createdAtMs: T0, expiresAtMs: null, ...overrides };
}

function partner(id: string, overrides: Partial<DemandPartnerRecord> = {}): DemandPartnerRecord {
  return {
    id,
    name: `Partner ${id}`,
    endpoint: `http://127.0.0.1:9/${id}`,
    adapter: 'openrtb25',
    timeoutMs: 1000,
    gzip: false,
    qpsLimit: null,
    currency: 'USD',
    enabled: true,
    openrtbVersion: '2.5',
    gvlVendorId: null,
    mediaTypes: ['banner', 'video', 'audio', 'native'],
    createdAtMs: T0,
    updatedAtMs: T0,
    ...overrides,
  };
}

function delta(publisherId: string, minuteStartMs: number, overrides: Partial<CounterDelta> = {}): CounterDelta {
  return {
    publisherId,
    minuteStartMs,
    requests: 0,
    imps: 0,
    impsFilled: 0,
    bids: 0,
    wins: 0,
    impressions: 0,
    revenueGrossMicros: 0,
    revenueNetMicros: 0,
    ...overrides,
  };
}

function totalsOf(publisherId: string, overrides: Partial<CounterTotals> = {}): CounterTotals {
  const { minuteStartMs: _minute, ...totals } = delta(publisherId, 0);
  return { ...totals, ...overrides };
}

/** Registers the contract's describe/it blocks for the backend `name`. */
export function defineStoreContract(name: string, factory: StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let openPeer: (() => Promise<Store>) | undefined;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, openPeer, cleanup } = await factory());
      await store.migrate();
    });

    afterEach(async () => {
      await cleanup();
    });

    defineWebhookStoreContract(() => store);
    defineReportingStoreContract(() => store);
    defineRevenueStoreContract(() => store, async () => (openPeer ? openPeer() : store));
    defineSeriesStoreContract(() => store, async () => (openPeer ? openPeer() : store));

    describe('lifecycle', () => {
      it('names its kind', () => {
        expect(['sqlite', 'postgres']).toContain(store.kind);
      });

      it('ping resolves on an open store', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });

      it('migrate twice is a no-op that keeps the data', async () => {
        await store.settings.set('k', 'v');
        await store.publishers.create(publisher('pub_1'), apiKey('key_1', 'pub_1'));
        await store.migrate();
        expect(await store.settings.get('k')).toBe('v');
        expect(await store.publishers.get('pub_1')).toEqual(publisher('pub_1'));
      });

      it('ping rejects once closed, and close is idempotent', async () => {
        await store.close();
        await expect(store.ping()).rejects.toThrow();
        await store.close();
      });
    });

    describe('publishers', () => {
      it('create then get round-trips every field', async () => {
        const record = publisher('pub_1', { domain: 'example.com', domains: ['example.com', 'news.example'], browserAccess: true, updatedAtMs: T0 + 5 });
        await store.publishers.create(record, apiKey('key_1', 'pub_1'));
        expect(await store.publishers.get('pub_1')).toEqual(record);
        expect(await store.publishers.get('pub_missing')).toBeUndefined();
      });

      it('list answers every publisher in creation order', async () => {
        await store.publishers.create(publisher('pub_b', { createdAtMs: T0 }), apiKey('key_b', 'pub_b'));
        await store.publishers.create(publisher('pub_a', { createdAtMs: T0 + 1 }), apiKey('key_a', 'pub_a'));
        expect((await store.publishers.list()).map((p) => p.id)).toEqual(['pub_b', 'pub_a']);
      });

      it('update applies the given fields only and answers the record', async () => {
        await store.publishers.create(publisher('pub_1', { domains: ['a.example'] }), apiKey('key_1', 'pub_1'));
        const updated = await store.publishers.update('pub_1', { name: 'Renamed', browserAccess: true, domains: [], updatedAtMs: T0 + 10 });
        const expected = publisher('pub_1', { name: 'Renamed', browserAccess: true, domains: [], updatedAtMs: T0 + 10 });
        expect(updated).toEqual(expected);
        expect(await store.publishers.get('pub_1')).toEqual(expected);
        expect(await store.publishers.update('pub_1', { domain: 'b.example' })).toEqual({ ...expected, domain: 'b.example' });
        expect(await store.publishers.update('pub_1', {})).toEqual({ ...expected, domain: 'b.example' });
      });

      it('update of an unknown id answers undefined', async () => {
        expect(await store.publishers.update('pub_missing', { name: 'x' })).toBeUndefined();
        expect(await store.publishers.update('pub_missing', {})).toBeUndefined();
      });

      it('findByKeyHash finds the owner of a key without expiry', async () => {
        await store.publishers.create(publisher('pub_1'), apiKey('key_1', 'pub_1'));
        await store.publishers.create(publisher('pub_2'), apiKey('key_2', 'pub_2'));
        expect((await store.publishers.findByKeyHash('hash-key_1', T0))?.id).toBe('pub_1');
        expect((await store.publishers.findByKeyHash('hash-key_2', T0 + 1e12))?.id).toBe('pub_2');
        expect(await store.publishers.findByKeyHash('hash-unknown', T0)).toBeUndefined();
      });

      it('findByKeyHash respects expiry: valid before expiresAtMs, not at or after it', async () => {
        await store.publishers.create(publisher('pub_1'), apiKey('key_1', 'pub_1', { expiresAtMs: T0 + 1000 }));
        expect((await store.publishers.findByKeyHash('hash-key_1', T0 + 999))?.id).toBe('pub_1');
        expect(await store.publishers.findByKeyHash('hash-key_1', T0 + 1000)).toBeUndefined();
        expect(await store.publishers.findByKeyHash('hash-key_1', T0 + 5000)).toBeUndefined();
      });

      it('rotateKey adds the new key and gives the grace period only to old keys without an expiry', async () => {
        await store.publishers.create(publisher('pub_1'), apiKey('key_old', 'pub_1'));
        await store.publishers.create(publisher('pub_2'), apiKey('key_other', 'pub_2'));
        const grace1 = T0 + 10_000;
        await store.publishers.rotateKey(apiKey('key_mid', 'pub_1', { createdAtMs: T0 + 1 }), grace1);

        expect((await store.publishers.findByKeyHash('hash-key_old', grace1 - 1))?.id).toBe('pub_1');
        expect(await store.publishers.findByKeyHash('hash-key_old', grace1)).toBeUndefined();
        expect((await store.publishers.findByKeyHash('hash-key_mid', grace1 + 1e9))?.id).toBe('pub_1');
        // Another publisher's key is untouched.
        expect((await store.publishers.findByKeyHash('hash-key_other', grace1 + 1e9))?.id).toBe('pub_2');

        // A second rotation: the key already on grace keeps its earlier end; the previous new key gets the new grace.
        const grace2 = T0 + 50_000;
        await store.publishers.rotateKey(apiKey('key_new', 'pub_1', { createdAtMs: T0 + 2 }), grace2);
        expect(await store.publishers.findByKeyHash('hash-key_old', grace1 + 1)).toBeUndefined();
        expect((await store.publishers.findByKeyHash('hash-key_mid', grace2 - 1))?.id).toBe('pub_1');
        expect(await store.publishers.findByKeyHash('hash-key_mid', grace2)).toBeUndefined();
        expect((await store.publishers.findByKeyHash('hash-key_new', grace2 + 1e9))?.id).toBe('pub_1');
      });

      it('round-trips sellerType and isConfidential (migration 005) on create and update', async () => {
        await store.publishers.create(publisher('pub_s', { sellerType: 'INTERMEDIARY', isConfidential: true }), apiKey('key_s', 'pub_s'));
        expect(await store.publishers.get('pub_s')).toMatchObject({ sellerType: 'INTERMEDIARY', isConfidential: true });
        expect(await store.publishers.update('pub_s', { sellerType: 'BOTH', isConfidential: false })).toMatchObject({ sellerType: 'BOTH', isConfidential: false });
        expect((await store.publishers.list()).find((p) => p.id === 'pub_s')).toMatchObject({ sellerType: 'BOTH', isConfidential: false });
      });

      it('a key hash is unique across publishers', async () => {
        await store.publishers.create(publisher('pub_1'), apiKey('key_1', 'pub_1'));
        await expect(store.publishers.create(publisher('pub_2'), apiKey('key_2', 'pub_2', { keyHash: 'hash-key_1' }))).rejects.toThrow();
        // The failed create left nothing behind (one transaction).
        expect(await store.publishers.get('pub_2')).toBeUndefined();
      });

      it('delete removes the publisher and cascades to its keys', async () => {
        await store.publishers.create(publisher('pub_1'), apiKey('key_1', 'pub_1'));
        await store.publishers.rotateKey(apiKey('key_2', 'pub_1'), T0 + 1000);
        await store.publishers.create(publisher('pub_keep'), apiKey('key_keep', 'pub_keep'));

        expect(await store.publishers.delete('pub_1')).toBe(true);
        expect(await store.publishers.get('pub_1')).toBeUndefined();
        expect(await store.publishers.findByKeyHash('hash-key_1', T0)).toBeUndefined();
        expect(await store.publishers.findByKeyHash('hash-key_2', T0)).toBeUndefined();
        expect(await store.publishers.delete('pub_1')).toBe(false);
        expect((await store.publishers.findByKeyHash('hash-key_keep', T0))?.id).toBe('pub_keep');

        // The key rows are gone, not merely unreachable: their hashes and ids can be used again.
        await store.publishers.create(publisher('pub_3'), apiKey('key_1', 'pub_3'));
        expect((await store.publishers.findByKeyHash('hash-key_1', T0))?.id).toBe('pub_3');
      });
    });

    describe('demand partners', () => {
      it('create then get round-trips the defaults', async () => {
        const record = partner('dsp_1');
        await store.demandPartners.create(record);
        const stored = await store.demandPartners.get('dsp_1');
        expect(stored).toEqual(record);
        expect(stored?.gzip).toBe(false);
        expect(stored?.enabled).toBe(true);
        expect(stored?.qpsLimit).toBeNull();
        expect(await store.demandPartners.get('dsp_missing')).toBeUndefined();
      });

      it('round-trips booleans both ways and a numeric qps limit', async () => {
        const record = partner('dsp_2', { gzip: true, enabled: false, qpsLimit: 250, currency: 'EUR', timeoutMs: 80, adapter: 'custom' });
        await store.demandPartners.create(record);
        expect(await store.demandPartners.get('dsp_2')).toEqual(record);
      });

      it('round-trips openrtbVersion and gvlVendorId (migration 005); gvlVendorId null clears it', async () => {
        const record = partner('dsp_26', { openrtbVersion: '2.6', gvlVendorId: 65535 });
        await store.demandPartners.create(record);
        expect(await store.demandPartners.get('dsp_26')).toEqual(record);
        expect(await store.demandPartners.update('dsp_26', { gvlVendorId: null, openrtbVersion: '2.5' })).toEqual({ ...record, gvlVendorId: null, openrtbVersion: '2.5' });
        expect(await store.demandPartners.update('dsp_26', { gvlVendorId: 11 })).toMatchObject({ gvlVendorId: 11, openrtbVersion: '2.5' });
      });

      it('update applies the given fields; qpsLimit null clears the cap', async () => {
        await store.demandPartners.create(partner('dsp_1', { qpsLimit: 100 }));
        const updated = await store.demandPartners.update('dsp_1', { gzip: true, enabled: false, qpsLimit: null, updatedAtMs: T0 + 7 });
        const expected = partner('dsp_1', { gzip: true, enabled: false, qpsLimit: null, updatedAtMs: T0 + 7 });
        expect(updated).toEqual(expected);
        expect(await store.demandPartners.get('dsp_1')).toEqual(expected);
        expect(await store.demandPartners.update('dsp_1', { enabled: true, qpsLimit: 5 })).toEqual({ ...expected, enabled: true, qpsLimit: 5 });
        expect(await store.demandPartners.update('dsp_missing', { name: 'x' })).toBeUndefined();
      });

      it('round-trips media_types and updates them alone', async () => {
        await store.demandPartners.create(partner('dsp_v', { mediaTypes: ['video', 'native'] }));
        expect((await store.demandPartners.get('dsp_v'))?.mediaTypes).toEqual(['video', 'native']);
        const updated = await store.demandPartners.update('dsp_v', { mediaTypes: ['banner'] });
        expect(updated).toEqual(partner('dsp_v', { mediaTypes: ['banner'] }));
        expect((await store.demandPartners.list()).map((p) => p.mediaTypes)).toEqual([['banner']]);
      });

      it('list answers partners in creation order; delete removes one', async () => {
        await store.demandPartners.create(partner('dsp_b', { createdAtMs: T0 }));
        await store.demandPartners.create(partner('dsp_a', { createdAtMs: T0 + 1 }));
        expect((await store.demandPartners.list()).map((p) => p.id)).toEqual(['dsp_b', 'dsp_a']);
        expect(await store.demandPartners.delete('dsp_b')).toBe(true);
        expect(await store.demandPartners.delete('dsp_b')).toBe(false);
        expect((await store.demandPartners.list()).map((p) => p.id)).toEqual(['dsp_a']);
      });
    });

    describe('bids', () => {
      it('insertMany then get round-trips every field', async () => {
        const full = bid('bid_1', { adId: 'ad-9', partnerNurl: 'http://dsp.test/win?p=${AUCTION_PRICE}', partnerBurl: 'http://dsp.test/bill', mbr: 0.5 });
        const sparse = bid('bid_2');
        await store.bids.insertMany([full, sparse]);
        expect(await store.bids.get('bid_1')).toEqual(full);
        expect(await store.bids.get('bid_2')).toEqual(sparse);
        expect(await store.bids.get('bid_missing')).toBeUndefined();
      });

      it('insertMany is idempotent per bid id: a present id is left unchanged', async () => {
        await store.bids.insertMany([bid('bid_1')]);
        await store.bids.insertMany([bid('bid_1', { seat: 'other', clearingPartnerMicros: 1 }), bid('bid_2')]);
        expect(await store.bids.get('bid_1')).toEqual(bid('bid_1'));
        expect(await store.bids.get('bid_2')).toEqual(bid('bid_2'));
        // The same id twice in one batch keeps the first.
        await store.bids.insertMany([bid('bid_3', { seat: 'first' }), bid('bid_3', { seat: 'second' })]);
        expect((await store.bids.get('bid_3'))?.seat).toBe('first');
      });

      it('insertMany accepts an empty batch and a batch larger than one statement', async () => {
        await store.bids.insertMany([]);
        const many = Array.from({ length: 1200 }, (_, i) => bid(`bid_${i}`));
        await store.bids.insertMany(many);
        expect(await store.bids.get('bid_0')).toEqual(many[0]);
        expect(await store.bids.get('bid_1199')).toEqual(many[1199]);
      });
    });

    describe('notices', () => {
      it('the first record of (bid, kind) is first; later ones are repeats answering the stored one', async () => {
        const original = notice('bid_1', { priceFlagged: true });
        expect(await store.notices.record(original)).toEqual({ outcome: 'first', stored: original, milestones: [] });
        const again = notice('bid_1', { netUsdMicros: 1, grossUsdMicros: 1, receivedAtMs: T0 + 99, priceFlagged: false });
        expect(await store.notices.record(again)).toEqual({ outcome: 'repeat', stored: original, milestones: [] });
      });

      it('kinds are independent for one bid, and bids are independent', async () => {
        expect((await store.notices.record(notice('bid_1', { kind: 'win', source: 'win' }))).outcome).toBe('first');
        const billing = notice('bid_1', { kind: 'billing', source: 'impression' });
        expect(await store.notices.record(billing)).toEqual({ outcome: 'first', stored: billing, milestones: [] });
        expect((await store.notices.record(notice('bid_1', { kind: 'billing', source: 'billing' }))).stored.source).toBe('impression');
        expect((await store.notices.record(notice('bid_2', { kind: 'win' }))).outcome).toBe('first');
      });

      it('concurrent records of one (bid, kind) yield exactly one first', async () => {
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.notices.record(notice('bid_1', { receivedAtMs: T0 + i }))));
        expect(results.filter((r) => r.outcome === 'first')).toHaveLength(1);
        const first = results.find((r) => r.outcome === 'first');
        for (const r of results) expect(r.stored).toEqual(first?.stored);
      });
    });

    describe('counters', () => {
      it('add upserts: several add calls sum per publisher and minute', async () => {
        await store.counters.add([delta('pub_1', T0, { requests: 1, imps: 2, impsFilled: 1, bids: 1 })]);
        await store.counters.add([delta('pub_1', T0, { requests: 2, imps: 3, wins: 1, impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 })]);
        await store.counters.add([
          delta('pub_1', T0, { requests: 1, revenueNetMicros: 1 }),
          // The same key twice in one call sums too.
          delta('pub_1', T0, { requests: 1 }),
        ]);
        expect(await store.counters.totals(T0, T0 + MINUTE_MS)).toEqual([
          totalsOf('pub_1', { requests: 5, imps: 5, impsFilled: 1, bids: 1, wins: 1, impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2001 }),
        ]);
      });

      it('totals sum over [from, to) per publisher, ordered by publisher id', async () => {
        await store.counters.add([
          delta('pub_b', T0 - MINUTE_MS, { requests: 100 }),
          delta('pub_b', T0, { requests: 1, bids: 1 }),
          delta('pub_b', T0 + MINUTE_MS, { requests: 2 }),
          delta('pub_b', T0 + 2 * MINUTE_MS, { requests: 1000 }),
          delta('pub_a', T0 + MINUTE_MS, { requests: 7, revenueNetMicros: 3 }),
        ]);
        const totals = await store.counters.totals(T0, T0 + 2 * MINUTE_MS);
        expect(totals).toEqual([totalsOf('pub_a', { requests: 7, revenueNetMicros: 3 }), totalsOf('pub_b', { requests: 3, bids: 1 })]);
        expect((await store.counters.totals(T0, T0 + 2 * MINUTE_MS, 'pub_b')).map((t) => [t.publisherId, t.requests])).toEqual([['pub_b', 3]]);
        expect(await store.counters.totals(T0, T0 + 2 * MINUTE_MS, 'pub_none')).toEqual([]);
        expect(await store.counters.totals(T0 + 10 * MINUTE_MS, T0 + 20 * MINUTE_MS)).toEqual([]);
      });

      it('add with no deltas changes nothing; large micros amounts stay exact', async () => {
        await store.counters.add([]);
        expect(await store.counters.totals(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
        const big = 9_000_000_000_000; // 9 million USD in micros: beyond 32-bit integers.
        await store.counters.add([delta('pub_1', T0, { revenueGrossMicros: big })]);
        await store.counters.add([delta('pub_1', T0, { revenueGrossMicros: big })]);
        expect((await store.counters.totals(0, Number.MAX_SAFE_INTEGER))[0]?.revenueGrossMicros).toBe(2 * big);
      });
    });

    describe('settings', () => {
      it('get answers undefined for a missing key', async () => {
        expect(await store.settings.get('missing')).toBeUndefined();
      });

      it('setIfAbsent stores once and answers the stored value after', async () => {
        expect(await store.settings.setIfAbsent('secret', 'first')).toBe('first');
        expect(await store.settings.setIfAbsent('secret', 'second')).toBe('first');
        expect(await store.settings.get('secret')).toBe('first');
      });

      it('concurrent setIfAbsent calls all answer the one stored value', async () => {
        const values = await Promise.all(Array.from({ length: 6 }, (_, i) => store.settings.setIfAbsent('race', `v${i}`)));
        expect(new Set(values).size).toBe(1);
        expect(await store.settings.get('race')).toBe(values[0]);
      });

      it('set overwrites', async () => {
        await store.settings.set('mark', '1');
        await store.settings.set('mark', '2');
        expect(await store.settings.get('mark')).toBe('2');
        expect(await store.settings.setIfAbsent('mark', '3')).toBe('2');
      });
    });
  });
}
