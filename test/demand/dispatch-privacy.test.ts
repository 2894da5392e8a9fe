/**
 * The dispatcher's privacy step (DESIGN section 11): a blocked partner is not called, takes no
 * QPS token, is counted in `adx_privacy_blocked_total` and recorded as `skipped` with a
 * `privacy_blocked` error (seat-non-bid 204); the others get their own copies. The dispatcher
 * decodes the request's strings once, not per partner.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildSeatNonBid, statusForCall } from '../../src/auction/seat-non-bid.js';
import { createDemandDispatcher } from '../../src/demand/dispatch.js';
import { createAdapterRegistry } from '../../src/demand/registry.js';
import { ManualClock } from '../../src/domain/clock.js';
import { CurrencyConverter } from '../../src/domain/currency.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import type { BidRequest } from '../../src/domain/openrtb.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createPrivacyEnforcer } from '../../src/privacy/index.js';
import * as tcf from '../../src/privacy/tcf.js';
import type { DemandPartnerRecord } from '../../src/storage/ports.js';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { tcString } from '../helpers/consent.js';

const fakes: FakeDsp[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

function partner(id: string, endpoint: string, overrides: Partial<DemandPartnerRecord> = {}): DemandPartnerRecord {
  return { id, name: id, endpoint, adapter: 'openrtb25', timeoutMs: 1000, gzip: false, qpsLimit: null, currency: 'USD', enabled: true, openrtbVersion: '2.5', gvlVendorId: null, mediaTypes: ['banner', 'video', 'audio', 'native'], createdAtMs: 0, updatedAtMs: 0, ...overrides };
}

describe('dispatch with privacy rules', () => {
  it('blocks by vendor, counts, keeps QPS tokens, and decodes the TC string once per distinct string', async () => {
    const dsp = await startFakeDsp(bidEveryImp());
    fakes.push(dsp);
    const clock = new ManualClock();
    const metrics = createMetrics();
    const decode = vi.spyOn(tcf, 'decodeTcf');
    const dispatcher = createDemandDispatcher({
      registry: createAdapterRegistry(),
      clock,
      metrics,
      log: silentLogger(),
      rates: () => new CurrencyConverter({ base: 'USD', date: '2026-01-01', rates: {} }),
      ids: createSequentialIds(),
      exchangeDomain: 'adx.example',
      maxResponseBytes: 65536,
      connectionsPerPartner: 2,
      tmaxMarginMs: 10,
      privacy: createPrivacyEnforcer({ cacheEntries: 4 }),
    });
    try {
      const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [11] });
      const request: BidRequest = { id: 'r', imp: [{ id: '1', banner: { w: 300, h: 250 } }], regs: { gdpr: 1 }, user: { id: 'u', consent: tc } };
      const partners = [
        partner('dsp_ok', dsp.url, { gvlVendorId: 11 }),
        partner('dsp_denied', dsp.url, { gvlVendorId: 22, qpsLimit: 1 }),
        partner('dsp_none', dsp.url),
      ];
      const before = decode.mock.calls.length;
      for (let i = 0; i < 2; i++) {
        const { calls } = await dispatcher.dispatch(request, partners, { publisherId: 'pub_1', deadlineMonoMs: clock.monotonicMs() + 500 });
        expect(calls.map((c) => [c.partnerId, c.outcome, c.privacyBlocked])).toEqual([
          ['dsp_ok', 'bids', undefined],
          ['dsp_denied', 'skipped', 'gdpr_purpose2_denied'],
          ['dsp_none', 'skipped', 'gdpr_no_vendor_id'],
        ]);
        expect(calls[1]!.errors).toEqual([{ kind: 'privacy_blocked', message: 'gdpr_purpose2_denied' }]);
        expect(statusForCall(calls[1]!)).toBe(204);
        expect(buildSeatNonBid(['1'], calls, [])).toContainEqual({ seat: 'dsp_none', nonbid: [{ impid: '1', statuscode: 204 }] });
      }
      // One decode for two dispatches of three partners: cached by the string.
      expect(decode.mock.calls.length - before).toBe(1);
      expect(dsp.requests).toHaveLength(2);
      const counted = (await metrics.privacyBlocked.get()).values;
      expect(counted).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ labels: { partner: 'dsp_denied', reason: 'gdpr_purpose2_denied' }, value: 2 }),
          expect.objectContaining({ labels: { partner: 'dsp_none', reason: 'gdpr_no_vendor_id' }, value: 2 }),
        ]),
      );
      // The blocked partner took no QPS token: with GDPR off it is called at once.
      const { calls } = await dispatcher.dispatch({ ...request, regs: { gdpr: 0 } }, [partners[1]!], { publisherId: 'pub_1', deadlineMonoMs: clock.monotonicMs() + 500 });
      expect(calls[0]!.outcome).toBe('bids');
      // Not counted as an adapter error.
      expect((await metrics.adapterErrors.get()).values.filter((v) => v.labels.adapter_error === 'privacy_blocked')).toEqual([]);
    } finally {
      await dispatcher.close();
      decode.mockRestore();
    }
  });
});
