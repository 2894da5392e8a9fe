import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createDemandDispatcher, type DemandDispatcher } from '../../src/demand/dispatch.js';
import { createAdapterRegistry } from '../../src/demand/registry.js';
import { ManualClock, systemClock, type Clock } from '../../src/domain/clock.js';
import { CurrencyConverter } from '../../src/domain/currency.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import type { BidRequest } from '../../src/domain/openrtb.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { DemandPartnerRecord } from '../../src/storage/ports.js';
import { bidEveryImp, fakeBid, startFakeDsp, type FakeDsp, type FakeDspAnswer } from '../fakes/fake-dsp.js';

const MAX_RESPONSE_BYTES = 64 * 1024;
const MARGIN_MS = 10;

const fakes: FakeDsp[] = [];
const dispatchers: DemandDispatcher[] = [];

afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.close()));
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function fake(behaviour: Parameters<typeof startFakeDsp>[0]): Promise<FakeDsp> {
  const f = await startFakeDsp(behaviour);
  fakes.push(f);
  return f;
}

function partner(id: string, endpoint: string, overrides: Partial<DemandPartnerRecord> = {}): DemandPartnerRecord {
  return { id, name: id, endpoint, adapter: 'openrtb25', timeoutMs: 1000, gzip: false, qpsLimit: null, currency: 'USD', enabled: true, mediaTypes: ['banner', 'video', 'audio', 'native'], createdAtMs: 0, updatedAtMs: 0, ...overrides };
}

function setup(options: { clock?: Clock; maxResponseBytes?: number; connectionsPerPartner?: number } = {}): { dispatcher: DemandDispatcher; metrics: Metrics; clock: Clock } {
  const clock = options.clock ?? systemClock;
  const metrics = createMetrics();
  const dispatcher = createDemandDispatcher({
    registry: createAdapterRegistry(),
    clock,
    metrics,
    log: silentLogger(),
    rates: () => new CurrencyConverter({ base: 'USD', date: '2026-01-01', rates: { EUR: 0.9 } }),
    ids: createSequentialIds(),
    exchangeDomain: 'adx.example',
    maxResponseBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    connectionsPerPartner: options.connectionsPerPartner ?? 4,
    tmaxMarginMs: MARGIN_MS,
  });
  dispatchers.push(dispatcher);
  return { dispatcher, metrics, clock };
}

function bidRequest(): BidRequest {
  return {
    id: 'r1',
    imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 1 }],
    site: { id: 's1', page: 'https://news.example/', publisher: { id: 'upstream-pub' } },
    device: { ua: 'Mozilla/5.0', ip: '203.0.113.9' },
    tmax: 200,
  };
}

function deadline(clock: Clock, tmaxMs: number): number {
  return clock.monotonicMs() + tmaxMs;
}

async function metricValue(metric: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> }, labels: Record<string, string>): Promise<number> {
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val)).reduce((sum, v) => sum + v.value, 0);
}

describe('demand dispatcher', () => {
  it('gathers bids from a good partner, with where they came from, and counts them', async () => {
    const dsp = await fake(bidEveryImp({ price: 2.5, seat: 'seat-a' }));
    const { dispatcher, metrics, clock } = setup();
    const { bids, calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 500) });

    expect(calls).toEqual([expect.objectContaining({ partnerId: 'dsp_a', adapter: 'openrtb25', outcome: 'bids', errors: [] })]);
    expect(bids).toHaveLength(1);
    expect(bids[0]).toMatchObject({ partnerId: 'dsp_a', adapter: 'openrtb25', seat: 'seat-a', currency: 'USD', arrivalSeq: 0, bid: { impid: '1', price: 2.5 } });
    expect(bids[0]?.partnerRequestId).toBe(dsp.requests[0]?.body.id);
    expect(await metricValue(metrics.adapterRequests, { adapter: 'dsp_a', hasbids: 'true' })).toBe(1);
    expect(await metricValue(metrics.adapterBids, { adapter: 'dsp_a' })).toBe(1);
    expect((await metrics.adapterRequestTime.get()).values.some((v) => v.labels.adapter === 'dsp_a' && v.value > 0)).toBe(true);
  });

  it('sends the OpenRTB 2.5 request shape: headers, new id, tmax = budget, schain node, converted floors', async () => {
    const dsp = await fake('no_bid');
    const clock = new ManualClock();
    const { dispatcher } = setup({ clock });
    const request = bidRequest();
    const before = structuredClone(request);
    await dispatcher.dispatch(request, [partner('dsp_eur', dsp.url, { currency: 'EUR' })], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 300) });

    expect(request).toEqual(before);
    expect(dsp.requests).toHaveLength(1);
    const sent = dsp.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/openrtb2');
    expect(sent.headers['x-openrtb-version']).toBe('2.5');
    expect(sent.headers['content-type']).toBe('application/json');
    // gzip (both directions) only for partners whose `gzip` is set: small JSON is cheaper plain.
    expect(sent.headers['accept-encoding'] ?? '').not.toContain('gzip');
    expect(sent.headers['content-encoding']).toBeUndefined();
    expect(sent.body.id).toBe('req_1');
    expect(sent.body.tmax).toBe(300 - MARGIN_MS);
    expect(sent.body.cur).toEqual(['EUR']);
    expect(sent.body.imp).toEqual([{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.9, bidfloorcur: 'EUR' }]);
    expect(sent.body.site).toEqual(request.site);
    expect(sent.body.device).toEqual(request.device);
    expect(sent.body.source.ext.schain).toEqual({ complete: 1, ver: '1.0', nodes: [{ asi: 'adx.example', sid: 'pub_1', rid: 'r1', hp: 1 }] });
  });

  it("caps tmax by the partner's timeout_ms", async () => {
    const dsp = await fake('no_bid');
    const clock = new ManualClock();
    const { dispatcher } = setup({ clock });
    await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url, { timeoutMs: 120 })], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 900) });
    expect(dsp.requests[0]?.body.tmax).toBe(120);
  });

  it('drops a partner late past its budget, recording timeout, and resolves by the deadline', async () => {
    const good = await fake(bidEveryImp());
    const slow = await fake((body) => ({ ...bidEveryImp()(body), delayMs: 2000 }));
    const { dispatcher, metrics, clock } = setup();
    const tmaxMs = 200;
    const startedMs = performance.now();
    const { bids, calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_good', good.url), partner('dsp_slow', slow.url)], {
      publisherId: 'pub_1',
      deadlineMonoMs: deadline(clock, tmaxMs),
    });
    const elapsedMs = performance.now() - startedMs;

    expect(elapsedMs).toBeLessThan(tmaxMs + 50);
    expect(slow.requests).toHaveLength(1);
    expect(bids.map((b) => b.partnerId)).toEqual(['dsp_good']);
    expect(calls.map((c) => [c.partnerId, c.outcome])).toEqual([
      ['dsp_good', 'bids'],
      ['dsp_slow', 'timeout'],
    ]);
    expect(calls[1]?.errors.map((e) => e.kind)).toEqual(['timeout']);
    expect(await metricValue(metrics.adapterErrors, { adapter: 'dsp_slow', adapter_error: 'timeout' })).toBe(1);
    expect(await metricValue(metrics.adapterRequests, { adapter: 'dsp_slow', hasbids: 'false' })).toBe(1);
  });

  it('times out a partner that never answers', async () => {
    const dsp = await fake(() => ({ neverAnswer: true }));
    const { dispatcher, clock } = setup();
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url, { timeoutMs: 60 })], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 500) });
    expect(calls[0]?.outcome).toBe('timeout');
  });

  it('times out a call still queued for a pooled connection at its budget, not later', async () => {
    const dsp = await fake(() => ({ neverAnswer: true }));
    const { dispatcher, clock } = setup({ connectionsPerPartner: 1 });
    const tmaxMs = 150;
    const startedMs = performance.now();
    // Same origin, one connection: the second call waits in the pool behind the first.
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_first', `${dsp.origin}/a`), partner('dsp_queued', `${dsp.origin}/b`)], {
      publisherId: 'pub_1',
      deadlineMonoMs: deadline(clock, tmaxMs),
    });
    expect(performance.now() - startedMs).toBeLessThan(tmaxMs + 50);
    expect(calls.map((c) => c.outcome)).toEqual(['timeout', 'timeout']);
    expect(dsp.requests).toHaveLength(1);
  });

  it.each([
    ['junk', 'junk' as const, 'error', ['bad_response']],
    ['204', 'no_bid' as const, 'no_bid', []],
    ['{}', 'empty_object' as const, 'no_bid', []],
    ['an empty seatbid', 'empty_seatbid' as const, 'no_bid', []],
    ['500', 'error_500' as const, 'error', ['http_status']],
  ])('records a partner answering %s', async (_name, preset, outcome, kinds) => {
    const dsp = await fake(preset);
    const { dispatcher, metrics, clock } = setup();
    const { bids, calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 500) });
    expect(bids).toEqual([]);
    expect(calls[0]?.outcome).toBe(outcome);
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(kinds);
    for (const kind of kinds) expect(await metricValue(metrics.adapterErrors, { adapter: 'dsp_a', adapter_error: kind })).toBe(1);
    expect(await metricValue(metrics.adapterRequests, { adapter: 'dsp_a', hasbids: 'false' })).toBe(1);
  });

  it('drops a 5 MB streamed answer as too_large without reading it all', async () => {
    const fiveMb = Buffer.alloc(5 * 1024 * 1024, 0x20);
    // 64 KiB every 5 ms: the whole answer would take far longer than the budget.
    const dsp = await fake(() => ({ status: 200, raw: fiveMb, streamChunkBytes: 64 * 1024, streamIntervalMs: 5 }));
    const { dispatcher, clock } = setup();
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_big', dsp.url, { timeoutMs: 250 })], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(calls[0]?.outcome).toBe('error');
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(['too_large']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dsp.bytesStreamed).toBeLessThan(fiveMb.length / 2);
  });

  it('drops an answer whose content-length exceeds the cap', async () => {
    const dsp = await fake(() => ({ status: 200, raw: Buffer.alloc(5 * 1024 * 1024, 0x20) }));
    const { dispatcher, clock } = setup();
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_big', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(['too_large']);
  });

  it('drops a gzip answer that inflates past the cap (a gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(MAX_RESPONSE_BYTES);
    const dsp = await fake(() => ({ status: 200, raw: bomb, headers: { 'content-encoding': 'gzip' } }));
    const { dispatcher, clock } = setup();
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_bomb', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(['too_large']);
  });

  it('records network when the socket closes mid-answer', async () => {
    const dsp = await fake((body) => ({ ...bidEveryImp()(body), destroyAfterBytes: 12 }));
    const { dispatcher, metrics, clock } = setup();
    const { bids, calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_cut', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(bids).toEqual([]);
    expect(calls[0]?.outcome).toBe('error');
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(['network']);
    expect(await metricValue(metrics.adapterErrors, { adapter: 'dsp_cut', adapter_error: 'network' })).toBe(1);
  });

  it('records network when the partner refuses the connection', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const { dispatcher, clock } = setup();
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_gone', `http://127.0.0.1:${port}/`)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(['network']);
  });

  it('gzips the request when the partner wants it', async () => {
    const dsp = await fake(bidEveryImp());
    const { dispatcher, clock } = setup();
    const { bids } = await dispatcher.dispatch(bidRequest(), [partner('dsp_gz', dsp.url, { gzip: true })], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    const sent = dsp.requests[0]!;
    expect(sent.headers['content-encoding']).toBe('gzip');
    expect(sent.headers['accept-encoding']).toContain('gzip');
    expect([...sent.rawBody.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(sent.body.imp[0].id).toBe('1');
    expect(bids).toHaveLength(1);
  });

  it('decodes a gzipped answer', async () => {
    const dsp = await fake((body) => ({ ...bidEveryImp({ price: 3 })(body), gzip: true }));
    const { dispatcher, clock } = setup();
    const { bids, calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(calls[0]?.errors).toEqual([]);
    expect(bids.map((b) => b.bid.price)).toEqual([3]);
  });

  it('records bad_response for a corrupt gzip answer', async () => {
    const dsp = await fake(() => ({ status: 200, raw: Buffer.from('definitely not gzip'), headers: { 'content-encoding': 'gzip' } }));
    const { dispatcher, clock } = setup();
    const { calls } = await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    expect(calls[0]?.errors.map((e) => e.kind)).toEqual(['bad_response']);
  });

  it('caps each partner at its QPS limit on the injected clock', async () => {
    const dsp = await fake('no_bid');
    const clock = new ManualClock();
    const { dispatcher, metrics } = setup({ clock });
    const limited = partner('dsp_q', dsp.url, { qpsLimit: 2 });
    const run = () => dispatcher.dispatch(bidRequest(), [limited], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 500) });

    expect((await run()).calls[0]?.outcome).toBe('no_bid');
    expect((await run()).calls[0]?.outcome).toBe('no_bid');
    const third = await run();
    expect(third.calls[0]).toMatchObject({ outcome: 'skipped', errors: [{ kind: 'qps_limited' }] });
    expect(dsp.requests).toHaveLength(2);
    expect(await metricValue(metrics.adapterErrors, { adapter: 'dsp_q', adapter_error: 'qps_limited' })).toBe(1);

    clock.advance(500);
    expect((await run()).calls[0]?.outcome).toBe('no_bid');
    expect((await run()).calls[0]?.outcome).toBe('skipped');
    expect(dsp.requests).toHaveLength(3);
  });

  it('skips partners when no budget is left, with an unknown adapter, or disabled', async () => {
    const dsp = await fake(bidEveryImp());
    const clock = new ManualClock();
    const { dispatcher, metrics } = setup({ clock });
    const noBudget = await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, MARGIN_MS) });
    expect(noBudget.calls).toEqual([{ partnerId: 'dsp_a', adapter: 'openrtb25', outcome: 'skipped', latencyMs: 0, errors: [] }]);

    const others = await dispatcher.dispatch(bidRequest(), [partner('dsp_x', dsp.url, { adapter: 'nope' }), partner('dsp_off', dsp.url, { enabled: false })], {
      publisherId: 'pub_1',
      deadlineMonoMs: deadline(clock, 500),
    });
    expect(others.calls).toEqual([expect.objectContaining({ partnerId: 'dsp_x', outcome: 'skipped', errors: [expect.objectContaining({ kind: 'bad_input' })] })]);
    expect(dsp.requests).toHaveLength(0);
    expect(await metricValue(metrics.adapterErrors, { adapter: 'dsp_x', adapter_error: 'bad_input' })).toBe(1);
  });

  it('does not call a partner whose media_types take none of the imps; reduces imps for the others', async () => {
    const bannerOnly = await fake(bidEveryImp());
    const videoOnly = await fake(bidEveryImp());
    const { dispatcher, clock } = setup();
    const request: BidRequest = { id: 'r-video', imp: [{ id: 'v', video: { mimes: ['video/mp4'] } }, { id: 'bv', banner: { w: 300, h: 250 }, video: { mimes: ['video/mp4'] } }] };
    const partners = [partner('dsp_b', bannerOnly.url, { mediaTypes: ['native'] }), partner('dsp_v', videoOnly.url, { mediaTypes: ['video'] })];
    const { calls } = await dispatcher.dispatch(request, partners, { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 500) });
    expect(calls.map((c) => [c.partnerId, c.outcome, c.errors])).toEqual([
      ['dsp_b', 'skipped', []],
      ['dsp_v', 'bids', []],
    ]);
    expect(bannerOnly.requests).toHaveLength(0);
    const sent = videoOnly.requests[0]?.body as BidRequest;
    expect(sent.imp).toEqual([
      { id: 'v', video: { mimes: ['video/mp4'] } },
      { id: 'bv', video: { mimes: ['video/mp4'] } },
    ]);
  });

  it('numbers bids across partners in the order they arrived', async () => {
    const twoBids = (price: number, delayMs: number) => (body: BidRequest | undefined): FakeDspAnswer => ({
      status: 200,
      delayMs,
      body: { id: body?.id, seatbid: [{ seat: `s${price}`, bid: [fakeBid({ id: '1' }, { id: `a${price}`, price }), fakeBid({ id: '1' }, { id: `b${price}`, price })] }] },
    });
    const late = await fake(twoBids(1, 120));
    const early = await fake(twoBids(2, 0));
    const { dispatcher, clock } = setup();
    const { bids } = await dispatcher.dispatch(bidRequest(), [partner('dsp_late', late.url), partner('dsp_early', early.url)], {
      publisherId: 'pub_1',
      deadlineMonoMs: deadline(clock, 1000),
    });
    expect(bids.map((b) => [b.partnerId, b.bid.id, b.arrivalSeq])).toEqual([
      ['dsp_early', 'a2', 0],
      ['dsp_early', 'b2', 1],
      ['dsp_late', 'a1', 2],
      ['dsp_late', 'b1', 3],
    ]);
  });

  it('reuses keep-alive connections across dispatches', async () => {
    const dsp = await fake(bidEveryImp());
    const { dispatcher, clock } = setup();
    for (let i = 0; i < 10; i++) {
      await dispatcher.dispatch(bidRequest(), [partner('dsp_a', dsp.url)], { publisherId: 'pub_1', deadlineMonoMs: deadline(clock, 1000) });
    }
    const ports = new Set(dsp.requests.map((r) => r.remotePort));
    expect(dsp.requests).toHaveLength(10);
    // undici may alternate between two pooled sockets; without keep-alive there would be ten.
    expect(ports.size).toBeLessThan(5);
  });
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.close()));
});
