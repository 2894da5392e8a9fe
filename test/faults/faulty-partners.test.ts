/**
 * Faulty demand partners (issue 7 part 2; DESIGN sections 2, 4 and 5): one good DSP and one
 * faulty DSP per case, through the real exchange on loopback. For every fault the answer is on
 * time (before tmax + 50 ms: a deadline, not a speed goal) and carries the good bid; the faulty
 * partner's contribution is dropped and counted: a parsed bid with its OpenRTB 2.5 loss reason
 * (section 5.25), seen on the faulty bid's `lurl` (`${AUCTION_LOSS}`) and in
 * `adx_adapter_bid_losses_total`; a failed exchange in `adx_adapter_errors_total`.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Bid, BidRequest } from '../../src/domain/openrtb.js';
import { fakeBid, startFakeDsp, type FakeDsp, type FakeDspAnswer } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';
import { scrape, sumOf } from './metrics-text.js';

const TMAX_MS = 300;
const DEADLINE_SLACK_MS = 50;

const request = {
  id: 'fault-req',
  imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.1 }],
  site: { domain: 'pub.example', page: 'https://pub.example/', publisher: { id: 'p1' } },
  device: { ua: 'faults', ip: '203.0.113.5' },
  tmax: TMAX_MS,
};

/** A faulty answer: either a bid the auction drops with `loss`, or an exchange failure `error`. */
interface FaultCase {
  name: string;
  answer: (body: BidRequest | undefined, lurl: string) => FakeDspAnswer;
  loss?: number;
  error?: string;
}

/** A bid response from the faulty DSP with one bid for imp 1 carrying `overrides` and an `lurl`. */
function faultyResponse(body: BidRequest | undefined, lurl: string, overrides: Partial<Record<keyof Bid, unknown>>, cur = 'USD') {
  const bid = { ...fakeBid({ id: '1' }, { price: 5, lurl }), ...overrides };
  return { id: body?.id ?? 'x', cur, seatbid: [{ seat: 'faulty-seat', bid: [bid] }] };
}

const validJson = (body: BidRequest | undefined, lurl: string) => Buffer.from(JSON.stringify(faultyResponse(body, lurl, {})));

const cases: FaultCase[] = [
  { name: 'never answers', answer: () => ({ neverAnswer: true }), error: 'timeout' },
  { name: 'answers after tmax', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, {}), delayMs: TMAX_MS + 150 }), error: 'timeout' },
  { name: 'sends 5 MB (content-length)', answer: () => ({ status: 200, raw: Buffer.alloc(5 * 1024 * 1024, 0x20) }), error: 'too_large' },
  { name: 'streams 5 MB (chunked)', answer: () => ({ status: 200, raw: Buffer.alloc(5 * 1024 * 1024, 0x20), streamChunkBytes: 256 * 1024 }), error: 'too_large' },
  { name: 'gzip that inflates past the cap', answer: () => ({ status: 200, raw: Buffer.alloc(5 * 1024 * 1024, 0x20), gzip: true }), error: 'too_large' },
  { name: 'bid for an unknown imp', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { impid: 'no-such-imp' }) }), loss: 3 },
  { name: 'price "NaN"', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { price: 'NaN' }) }), loss: 9 },
  { name: 'price null', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { price: null }) }), loss: 9 },
  { name: 'price missing', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { price: undefined }) }), loss: 9 },
  { name: 'negative price', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { price: -5 }) }), loss: 3 },
  { name: 'zero price', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { price: 0 }) }), loss: 3 },
  { name: 'string price', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { price: '5.00' }) }), loss: 9 },
  { name: 'price 1e400 (Infinity as raw JSON)', answer: (b, l) => ({ status: 200, raw: Buffer.from(JSON.stringify(faultyResponse(b, l, { price: 12345 })).replace('12345', '1e400')) }), loss: 3 },
  { name: 'unknown currency XXX', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, {}, 'XXX') }), loss: 3 },
  { name: 'wrong size 728x90', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { w: 728, h: 90 }) }), loss: 203 },
  { name: 'no adm', answer: (b, l) => ({ status: 200, body: faultyResponse(b, l, { adm: undefined }) }), loss: 7 },
  { name: 'malformed JSON', answer: (b, l) => ({ status: 200, raw: validJson(b, l).subarray(0, 40) }), error: 'bad_response' },
  { name: 'HTML instead of JSON', answer: () => ({ status: 200, body: '<html>oops</html>', headers: { 'content-type': 'text/html' } }), error: 'bad_response' },
  { name: 'gzip it did not announce', answer: (b, l) => ({ status: 200, raw: gzipSync(validJson(b, l)) }), error: 'bad_response' },
  { name: 'corrupt gzip it announced', answer: () => ({ status: 200, raw: Buffer.from('not gzip'), headers: { 'content-encoding': 'gzip' } }), error: 'bad_response' },
  { name: 'closes the socket mid-response', answer: (b, l) => ({ status: 200, raw: validJson(b, l), destroyAfterBytes: 30 }), error: 'network' },
  { name: 'HTTP 500', answer: () => ({ status: 500, body: 'boom' }), error: 'http_status' },
];

describe('faulty demand partners: dropped, counted, and the answer is on time with the good bid', () => {
  let good: FakeDsp;
  let faulty: FakeDsp;
  let ex: TestExchange;
  let goodId: string;
  let faultyId: string;

  beforeAll(async () => {
    good = await startFakeDsp((body) => ({ status: 200, body: { id: body?.id, cur: 'USD', seatbid: [{ seat: 'good-seat', bid: (body?.imp ?? []).map((imp) => fakeBid(imp, { price: 1 })) }] } }));
    faulty = await startFakeDsp('no_bid');
    // A faulty partner holds the dispatch to its budget (tmax - margin): the margin is what is left
    // for the auction, the commit and the answer, so a loaded test machine gets 100 ms of it.
    ex = await startTestExchange({ config: { auction: { tmaxMarginMs: 100 } }, partners: [{ name: 'good', endpoint: good.url }, { name: 'faulty', endpoint: faulty.url }] });
    [goodId, faultyId] = ex.partnerIds as [string, string];
    // Warm the keep-alive pools and caches so the first case measures the fault, not setup.
    for (let i = 0; i < 3; i++) await ex.bid(request);
  });
  afterAll(async () => {
    await ex?.close();
    await good?.close();
    await faulty?.close();
  });

  for (const fault of cases) {
    it(`${fault.name}: ${fault.loss !== undefined ? `loss ${fault.loss}` : `adapter error ${fault.error}`}`, async () => {
      const tag = fault.name.replace(/\W+/g, '-');
      const lurl = `${faulty.origin}/lurl?case=${tag}&loss=\${AUCTION_LOSS}`;
      faulty.setBehaviour((body) => fault.answer(body, lurl));
      const before = await scrape(ex.url);
      const faultyCalls = faulty.requests.length;

      const started = performance.now();
      const res = await ex.bid(request);
      const elapsedMs = performance.now() - started;

      expect(res.status, res.body.toString()).toBe(200);
      expect(elapsedMs).toBeLessThan(TMAX_MS + DEADLINE_SLACK_MS);
      const seatbid = res.json().seatbid;
      expect(seatbid).toHaveLength(1);
      expect(seatbid[0].seat).toBe(goodId);
      expect(seatbid[0].bid[0].adm).toContain('fake ad for 1');
      expect(faulty.requests.length).toBe(faultyCalls + 1); // the faulty partner was called

      if (fault.loss !== undefined) {
        await vi.waitFor(() => expect(faulty.hits.filter((h) => h.query.case === tag).map((h) => h.query.loss)).toEqual([String(fault.loss)]), { timeout: 3000, interval: 20 });
        const after = await scrape(ex.url);
        const delta = (s: typeof before) => sumOf(s, 'adx_adapter_bid_losses_total', { adapter: faultyId, loss_reason: String(fault.loss) });
        expect(delta(after) - delta(before)).toBe(1);
      } else {
        const after = await scrape(ex.url);
        const delta = (s: typeof before) => sumOf(s, 'adx_adapter_errors_total', { adapter: faultyId, adapter_error: fault.error! });
        expect(delta(after) - delta(before)).toBe(1);
        expect(sumOf(after, 'adx_adapter_bid_losses_total', { adapter: faultyId }) - sumOf(before, 'adx_adapter_bid_losses_total', { adapter: faultyId })).toBe(0);
      }
      // The good partner is never blamed.
      const after = await scrape(ex.url);
      expect(sumOf(after, 'adx_adapter_errors_total', { adapter: goodId })).toBe(0);
    });
  }

  it('after every fault the exchange is healthy and a normal auction gets both partners again', async () => {
    faulty.setBehaviour((body) => ({ status: 200, body: { id: body?.id, seatbid: [{ bid: [fakeBid({ id: '1' }, { price: 3 })] }] } }));
    const res = await ex.bid(request);
    expect(res.status).toBe(200);
    expect(res.json().seatbid[0].seat).toBe(faultyId); // the higher bid wins once it is well-formed
    const ready = await ex.admin('GET', '/readyz');
    expect(ready.status).toBe(200);
  });
});
