import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { CurrencyConverter } from '../../src/domain/currency.js';
import { createNoticeService, resolveNoticePrices, type NoticeService } from '../../src/notices/notice-service.js';
import { createPartnerNotifier, type PartnerNotifier } from '../../src/notices/partner-notifier.js';
import { createNoticeTokenCodec } from '../../src/notices/token.js';
import type { NoticeTokenPayload } from '../../src/notices/types.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import type { BidRecord, NoticeRecord } from '../../src/storage/ports.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';
import { counterValue, recordingCounters, startFakePartner, type FakePartner } from './helpers.js';

/** 1 USD = 0.5 EUR: every conversion below is exact. */
const rates = new CurrencyConverter({ base: 'USD', date: '2026-01-01', rates: { EUR: 0.5 } });
const MAX_AGE_SECONDS = 3600;
const ALL_MACROS =
  'auc=${AUCTION_ID}&bid=${AUCTION_BID_ID}&imp=${AUCTION_IMP_ID}&seat=${AUCTION_SEAT_ID}&ad=${AUCTION_AD_ID}' +
  '&price=${AUCTION_PRICE}&cur=${AUCTION_CURRENCY}&mbr=${AUCTION_MBR}';

describe('notice service (SQLite store, fake partner)', () => {
  let dir: string;
  let store: SqliteStore;
  let partner: FakePartner;
  let clock: ManualClock;
  let metrics: Metrics;
  let notifier: PartnerNotifier;
  let counters: ReturnType<typeof recordingCounters>;
  let billable: Array<{ notice: NoticeRecord; payload: NoticeTokenPayload }>;
  let service: NoticeService;
  const tokens = createNoticeTokenCodec({ secretKey: Buffer.from('notice-service-test-secret-key-32'), maxAgeSeconds: MAX_AGE_SECONDS });
  let seq = 0;

  function buildService(): NoticeService {
    return createNoticeService({
      store,
      clock,
      tokens,
      counters,
      notifier,
      metrics,
      log: silentLogger(),
      rates: () => rates,
      onBillable: async (notice, payload) => {
        billable.push({ notice, payload });
      },
    });
  }

  /** A token for a bid whose partner bid 1.25 EUR gross; the publisher gets 1 EUR (2 USD) net. */
  function tokenPayload(bidId: string): NoticeTokenPayload {
    return {
      auctionId: `auc_${bidId}`,
      impId: 'imp-1',
      bidId,
      partnerId: 'dsp-a',
      publisherId: 'pub-1',
      netMicros: 1_000_000,
      currency: 'EUR',
      netUsdMicros: 2_000_000,
      grossUsdMicros: 2_500_000,
      issuedAtMs: clock.now(),
    };
  }

  /** Stores a bid record (with partner nurl/burl on the fake partner) and answers its token. */
  async function bid(options: { nurl?: string | null; burl?: string | null; stored?: boolean } = {}): Promise<{ token: string; payload: NoticeTokenPayload }> {
    const bidId = `bid_t${++seq}`;
    const payload = tokenPayload(bidId);
    if (options.stored !== false) {
      const record: BidRecord = {
        bidId,
        auctionId: payload.auctionId,
        requestId: 'pub-request-1',
        impId: 'imp-1',
        publisherId: 'pub-1',
        partnerId: 'dsp-a',
        partnerRequestId: 'req_to_partner',
        partnerBidId: 'partner-bid-9',
        seat: 'seat 7',
        adId: 'ad-5',
        partnerCurrency: 'EUR',
        clearingPartnerMicros: 1_250_000,
        mbr: 0.8,
        partnerNurl: options.nurl === undefined ? `${partner.baseUrl}/win?${ALL_MACROS}` : options.nurl,
        partnerBurl: options.burl === undefined ? `${partner.baseUrl}/bill?${ALL_MACROS}` : options.burl,
        createdAtMs: clock.now(),
      };
      await store.bids.insertMany([record]);
    }
    return { token: tokens.sign(payload), payload };
  }

  const noticeMetric = (kind: string, outcome: string): Promise<number> => counterValue(metrics.notices, { kind, outcome });
  const query = (url: string): Record<string, string> => Object.fromEntries(new URL(url, 'http://x').searchParams);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-notices-'));
    store = await openSqliteStore({ path: join(dir, 'adx.db') });
    await store.migrate();
    partner = await startFakePartner();
    clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    metrics = createMetrics();
    notifier = createPartnerNotifier({ clock, metrics, log: silentLogger(), attempts: 2, timeoutMs: 2000, retryDelayMs: 5 });
    counters = recordingCounters();
    billable = [];
    service = buildService();
  });

  afterEach(async () => {
    await notifier.close();
    await partner.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('win', () => {
    it('counts the first win once and calls the partner nurl once with every macro substituted', async () => {
      const { token } = await bid();
      expect(await service.handle('win', token, '${AUCTION_PRICE}')).toEqual({ status: 'ok', first: true, flagged: false });
      expect(await service.handle('win', token, '1')).toEqual({ status: 'ok', first: false, flagged: false });
      await notifier.drain();

      expect(counters.calls).toEqual([{ publisherId: 'pub-1', fields: { wins: 1 }, atMs: clock.now() }]);
      expect(partner.calls).toHaveLength(1);
      const call = partner.calls[0]!;
      expect(call.url.startsWith('/win?')).toBe(true);
      expect(call.url).not.toContain('${');
      expect(query(call.url)).toEqual({ auc: 'req_to_partner', bid: 'partner-bid-9', imp: 'imp-1', seat: 'seat 7', ad: 'ad-5', price: '1.25', cur: 'EUR', mbr: '0.8' });
      expect(await noticeMetric('win', 'first')).toBe(1);
      expect(await noticeMetric('win', 'repeat')).toBe(1);
      expect(billable).toHaveLength(0);
    });

    it('treats a repeat through another service instance (another node) as a repeat', async () => {
      const { token } = await bid();
      await service.handle('win', token, undefined);
      const otherNode = buildService();
      expect(await otherNode.handle('win', token, undefined)).toEqual({ status: 'ok', first: false, flagged: false });
      await notifier.drain();
      expect(counters.calls).toHaveLength(1);
      expect(partner.calls).toHaveLength(1);
    });

    it('passes a lowered clearing price on to the partner, scaled by supplied / token net', async () => {
      const { token } = await bid();
      await service.handle('win', token, '0.5');
      await notifier.drain();
      expect(query(partner.calls[0]!.url).price).toBe('0.625');
    });

    it('still counts from the token when the bid record is missing, or has no nurl', async () => {
      const missing = await bid({ stored: false });
      const noNurl = await bid({ nurl: null });
      expect(await service.handle('win', missing.token, undefined)).toEqual({ status: 'ok', first: true, flagged: false });
      expect(await service.handle('win', noNurl.token, undefined)).toEqual({ status: 'ok', first: true, flagged: false });
      await notifier.drain();
      expect(counters.calls.map((c) => c.fields)).toEqual([{ wins: 1 }, { wins: 1 }]);
      expect(partner.calls).toHaveLength(0);
    });
  });

  describe('billing and impression', () => {
    it('counts the impression and revenue once, on the first of billing or pixel, and calls burl and onBillable once', async () => {
      const { token, payload } = await bid();
      expect(await service.handle('billing', token, undefined)).toEqual({ status: 'ok', first: true, flagged: false });
      expect(await service.handle('impression', token, undefined)).toEqual({ status: 'ok', first: false, flagged: false });
      expect(await service.handle('billing', token, undefined)).toEqual({ status: 'ok', first: false, flagged: false });
      await notifier.drain();

      // Revenue of one impression = CPM / 1000: 2.5 USD gross -> 2500 micros, 2 USD net -> 2000.
      expect(counters.calls).toEqual([{ publisherId: 'pub-1', fields: { impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 }, atMs: clock.now() }]);
      expect(partner.calls).toHaveLength(1);
      expect(partner.calls[0]!.url.startsWith('/bill?')).toBe(true);
      expect(query(partner.calls[0]!.url)).toMatchObject({ price: '1.25', cur: 'EUR', auc: 'req_to_partner' });
      expect(billable).toHaveLength(1);
      expect(billable[0]!.payload).toEqual(payload);
      expect(billable[0]!.notice).toMatchObject({ bidId: payload.bidId, kind: 'billing', source: 'billing', netUsdMicros: 2_000_000, grossUsdMicros: 2_500_000, priceFlagged: false });
      expect(await noticeMetric('billing', 'first')).toBe(1);
      expect(await noticeMetric('impression', 'repeat')).toBe(1);
    });

    it('counts the impression pixel when it comes first; billing then changes nothing', async () => {
      const { token } = await bid();
      expect(await service.handle('impression', token, undefined)).toEqual({ status: 'ok', first: true, flagged: false });
      expect(await service.handle('billing', token, '1')).toEqual({ status: 'ok', first: false, flagged: false });
      await notifier.drain();
      expect(counters.calls.map((c) => c.fields)).toEqual([{ impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 }]);
      expect(partner.calls).toHaveLength(1);
      expect(billable.map((b) => b.notice.source)).toEqual(['impression']);
    });

    it('keeps win and billing apart: a win does not make the impression a repeat', async () => {
      const { token } = await bid();
      await service.handle('win', token, undefined);
      expect(await service.handle('billing', token, undefined)).toEqual({ status: 'ok', first: true, flagged: false });
      await notifier.drain();
      expect(counters.calls.map((c) => c.fields)).toEqual([{ wins: 1 }, { impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 }]);
      expect(partner.calls.map((c) => c.url.split('?')[0])).toEqual(['/win', '/bill']);
    });
  });

  describe('the price parameter', () => {
    async function billingWith(price: string | undefined): Promise<{ outcome: unknown; fields: unknown; notice: NoticeRecord | undefined }> {
      const { token } = await bid();
      const outcome = await service.handle('billing', token, price);
      const fields = counters.calls.at(-1)?.fields;
      return { outcome, fields, notice: billable.at(-1)?.notice };
    }

    it('takes a price within [0, token net]: net converted to USD, gross scaled by supplied / token net', async () => {
      const r = await billingWith('0.5'); // 0.5 EUR = 1 USD net; gross 2.5 USD x 0.5 = 1.25 USD
      expect(r.outcome).toEqual({ status: 'ok', first: true, flagged: false });
      expect(r.fields).toEqual({ impressions: 1, revenueGrossMicros: 1250, revenueNetMicros: 1000 });
      expect(r.notice).toMatchObject({ netUsdMicros: 1_000_000, grossUsdMicros: 1_250_000, priceFlagged: false });
      await notifier.drain();
      expect(query(partner.calls[0]!.url).price).toBe('0.625');
    });

    it('takes the bounds 0 and exactly the token net', async () => {
      expect((await billingWith('0')).fields).toEqual({ impressions: 1, revenueGrossMicros: 0, revenueNetMicros: 0 });
      expect((await billingWith('1.000000')).fields).toEqual({ impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 });
    });

    it.each([
      ['above the token net', '1.01'],
      ['negative', '-0.1'],
      ['not a number', 'abc'],
      ['a number with junk', '0.5USD'],
      ['infinite', 'Infinity'],
      ['hexadecimal', '0x1'],
    ])('flags a price %s and uses the token price', async (_label, price) => {
      const r = await billingWith(price);
      expect(r.outcome).toEqual({ status: 'ok', first: true, flagged: true });
      expect(r.fields).toEqual({ impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 });
      expect(r.notice).toMatchObject({ netUsdMicros: 2_000_000, grossUsdMicros: 2_500_000, priceFlagged: true });
      expect(await noticeMetric('billing', 'flagged')).toBe(1);
    });

    it.each([
      ['absent', undefined],
      ['empty', ''],
      ['the unreplaced macro', '${AUCTION_PRICE}'],
      ['the percent-encoded macro', '%24%7BAUCTION_PRICE%7D'],
      ['the percent-encoded macro in lower case', '%24%7bauction_price%7d'],
      ['the macro with an encoding suffix', '${AUCTION_PRICE:B64}'],
    ])('treats %s as no price: token price, not flagged', async (_label, price) => {
      const r = await billingWith(price);
      expect(r.outcome).toEqual({ status: 'ok', first: true, flagged: false });
      expect(r.fields).toEqual({ impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 });
      expect(await noticeMetric('billing', 'flagged')).toBe(0);
    });

    it('answers a repeat with the flag of the notice recorded first', async () => {
      const { token } = await bid();
      expect(await service.handle('win', token, '7')).toEqual({ status: 'ok', first: true, flagged: true });
      expect(await service.handle('win', token, '0.5')).toEqual({ status: 'ok', first: false, flagged: true });
    });
  });

  describe('bad tokens', () => {
    it('answers forged for an altered token and changes nothing', async () => {
      const { token } = await bid();
      const i = 20;
      const forged = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      const outcome = await service.handle('win', forged, undefined);
      expect(['forged', 'malformed']).toContain(outcome.status);
      const raw = Buffer.from(token, 'base64url');
      raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 0x80; // a bit of the tag
      expect(await service.handle('billing', raw.toString('base64url'), undefined)).toEqual({ status: 'forged' });
      expect(await service.handle('impression', 'not a token', undefined)).toEqual({ status: 'malformed' });
      await notifier.drain();
      expect(counters.calls).toHaveLength(0);
      expect(partner.calls).toHaveLength(0);
      expect(await noticeMetric('billing', 'forged')).toBe(1);
      // The genuine token is still first: nothing was recorded for the forgeries.
      expect(await service.handle('win', token, undefined)).toEqual({ status: 'ok', first: true, flagged: false });
    });

    it('answers expired once maxAgeSeconds have passed', async () => {
      const { token } = await bid();
      clock.advance(MAX_AGE_SECONDS * 1000 + 1);
      expect(await service.handle('billing', token, undefined)).toEqual({ status: 'expired' });
      expect(counters.calls).toHaveLength(0);
      expect(billable).toHaveLength(0);
      expect(await noticeMetric('billing', 'expired')).toBe(1);
    });
  });
});

describe('resolveNoticePrices', () => {
  const payload: NoticeTokenPayload = {
    auctionId: 'auc_1', impId: '1', bidId: 'bid_1', partnerId: 'dsp', publisherId: 'pub',
    netMicros: 3_000_000, currency: 'GBP', netUsdMicros: 3_750_000, grossUsdMicros: 4_000_000, issuedAtMs: 0,
  };

  it('scales the token net USD price when the currency no longer has a rate', () => {
    const noGbp = new CurrencyConverter({ base: 'USD', date: '2026-01-01', rates: {} });
    expect(resolveNoticePrices(payload, '1', noGbp)).toEqual({ netUsdMicros: 1_250_000, grossUsdMicros: 1_333_333, flagged: false, ratio: { numerator: 1_000_000, denominator: 3_000_000 } });
  });

  it('accepts a zero-priced token only at 0', () => {
    const zero = { ...payload, netMicros: 0, netUsdMicros: 0, grossUsdMicros: 0 };
    expect(resolveNoticePrices(zero, '0', rates)).toMatchObject({ flagged: false, netUsdMicros: 0 });
    expect(resolveNoticePrices(zero, '0.01', rates)).toMatchObject({ flagged: true, netUsdMicros: 0 });
  });
});
