import { gunzipSync } from 'node:zlib';
import { request as undiciRequest } from 'undici';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLatencyRange, registerDspSimCommand, startDspSim, type DspSim } from '../../src/cli/dsp-sim.js';
import type { BidResponse } from '../../src/domain/openrtb.js';
import { readVast } from '../../src/auction/vast.js';
import { createDemandDispatcher } from '../../src/demand/dispatch.js';
import { createAdapterRegistry } from '../../src/demand/registry.js';
import { systemClock } from '../../src/domain/clock.js';
import { bundledConverter } from '../../src/domain/currency.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { DemandPartnerRecord } from '../../src/storage/ports.js';

const sims: DspSim[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function sim(options: Parameters<typeof startDspSim>[0]): Promise<DspSim> {
  const s = await startDspSim(options);
  sims.push(s);
  return s;
}

const bidRequest = {
  id: 'req-sim-1',
  imp: [
    { id: 'a', banner: { w: 300, h: 250 }, bidfloor: 0.4, bidfloorcur: 'USD' },
    { id: 'b', banner: { format: [{ w: 728, h: 90 }] }, bidfloor: 9 },
    { id: 'c', banner: { w: 300, h: 250 }, pmp: { private_auction: 1, deals: [{ id: 'deal-9', bidfloor: 7 }] } },
    { id: 'v', video: { mimes: ['video/mp4'] } },
  ],
  site: { id: 's', page: 'https://news.example/' },
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await undiciRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const raw = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, raw };
}

describe('dsp-sim', () => {
  it('answers a bid request with well-formed OpenRTB 2.5 bids, floors respected, macros in notice URLs', async () => {
    const s = await sim({ port: 0, bidProbability: 1, cpmMin: 0.5, cpmMax: 5, latencyMs: 0, seed: 7, name: 'sim-a', currency: 'EUR' });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/openrtb2$/);
    const res = await post(s.url, bidRequest);
    expect(res.status).toBe(200);
    expect(res.headers['x-openrtb-version']).toBe('2.5');
    const body = JSON.parse(res.raw.toString('utf8')) as BidResponse;
    expect(body.id).toBe('req-sim-1');
    expect(body.cur).toBe('EUR');
    expect(body.seatbid).toHaveLength(1);
    expect(body.seatbid?.[0]?.seat).toBe('sim-a');
    const bids = body.seatbid?.[0]?.bid ?? [];
    expect(bids.map((b) => b.impid)).toEqual(['a', 'b', 'c', 'v']);
    const [a, b, c, v] = bids;
    expect(v).toMatchObject({ mtype: 2, dur: 15, w: 640, h: 360 });
    expect(a).toMatchObject({ mtype: 1 });
    expect(a).toMatchObject({ w: 300, h: 250, crid: expect.any(String), cid: expect.any(String), adid: expect.any(String), adomain: ['sim-a-advertiser.example'] });
    expect(a!.price).toBeGreaterThanOrEqual(0.5);
    expect(b).toMatchObject({ w: 728, h: 90 });
    expect(b!.price).toBeGreaterThanOrEqual(9);
    expect(c!.dealid).toBe('deal-9');
    expect(c!.price).toBeGreaterThanOrEqual(7);
    for (const bid of bids) {
      expect(new Set(bids.map((x) => x.id)).size).toBe(4);
      expect(bid.adm).toContain('${AUCTION_PRICE}');
      expect(bid.nurl).toContain('/win?price=${AUCTION_PRICE}');
      for (const macro of ['${AUCTION_ID}', '${AUCTION_BID_ID}', '${AUCTION_IMP_ID}', '${AUCTION_SEAT_ID}', '${AUCTION_AD_ID}', '${AUCTION_CURRENCY}', '${AUCTION_MBR}']) {
        expect(bid.nurl).toContain(macro);
      }
      expect(bid.burl).toContain('/billing?price=${AUCTION_PRICE}');
      expect(bid.lurl).toContain('/loss?reason=${AUCTION_LOSS}');
      expect(bid.nurl!.startsWith(s.url.replace('/openrtb2', ''))).toBe(true);
    }
    expect(s.stats()).toMatchObject({ requests: 1, bids: 4, noBids: 0, bidsByType: { banner: 3, video: 1 } });
  });

  it('answers video and audio with VAST 4 InLine (media file, impression, quartiles) and native with the asked assets', async () => {
    const s = await sim({ bidProbability: 1, latencyMs: 0, seed: 3, name: 'sim-m' });
    const nativeRequest = { ver: '1.2', assets: [{ id: 7, required: 1, title: { len: 20 } }, { id: 8, img: { type: 3, w: 300, h: 250 } }, { id: 9, data: { type: 1 } }] };
    const res = await post(s.url, {
      id: 'req-mt',
      imp: [
        { id: 'v', video: { mimes: ['video/mp4'], minduration: 20, maxduration: 30 } },
        { id: 'au', audio: { mimes: ['audio/mp4'] } },
        { id: 'n', native: { request: JSON.stringify(nativeRequest), ver: '1.2' } },
      ],
    });
    const bids = (JSON.parse(res.raw.toString('utf8')) as BidResponse).seatbid![0]!.bid;
    const [video, audio, native] = bids;
    expect(video).toMatchObject({ impid: 'v', mtype: 2, dur: 20 });
    const vast = readVast(video!.adm!);
    expect(vast).toMatchObject({ version: '4.2', insertAt: [expect.any(Number)] });
    for (const e of ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete']) expect(video!.adm).toContain(`event="${e}"`);
    expect(video!.adm).toMatch(/<MediaFile [^>]*type="video\/mp4"/);
    expect(video!.adm).toContain('<Impression id="sim-m"><![CDATA[');
    expect(video!.adm).toContain('<Duration>00:00:20.000</Duration>');
    expect(audio).toMatchObject({ impid: 'au', mtype: 3, dur: 15 });
    expect(audio!.adm).toMatch(/<MediaFile [^>]*type="audio\/mp4"/);
    expect(typeof readVast(audio!.adm!)).toBe('object');
    expect(native).toMatchObject({ impid: 'n', mtype: 4 });
    const adm = JSON.parse(native!.adm!);
    expect(adm.assets.map((a: { id: number }) => a.id)).toEqual([7, 8, 9]);
    expect(adm.assets[0].title.text.length).toBeLessThanOrEqual(20);
    expect(adm.assets[1].img).toMatchObject({ w: 300, h: 250, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/media\//) });
    expect(adm.assets[2].data.value).toBe('sim-m advertiser');
    expect(adm.link.url).toMatch(/^https:\/\/sim-m-advertiser\.example\//);
    expect(adm.eventtrackers).toEqual([{ event: 1, method: 1, url: expect.stringContaining('/pixel?price=${AUCTION_PRICE}') }]);
    const quartile = await undiciRequest(s.url.replace('/openrtb2', '/track?event=midpoint'));
    await quartile.body.dump();
    expect(s.stats().trackingEvents).toEqual({ midpoint: 1 });
    expect(s.stats().bidsByType).toEqual({ video: 1, audio: 1, native: 1 });
  });

  it('answers 204 when it bids on nothing, and 400 to junk', async () => {
    const s = await sim({ bidProbability: 0, latencyMs: 0 });
    expect((await post(s.url, bidRequest)).status).toBe(204);
    expect((await post(s.url, 'junk')).status).toBe(400);
    expect(s.stats()).toMatchObject({ requests: 2, noBids: 1, badRequests: 1 });
  });

  it('gzips its answer when asked, and is deterministic with a seed', async () => {
    const one = await sim({ bidProbability: 0.5, latencyMs: 0, seed: 42 });
    const two = await sim({ bidProbability: 0.5, latencyMs: 0, seed: 42 });
    const r1 = await post(one.url, bidRequest, { 'accept-encoding': 'gzip' });
    const r2 = await post(two.url, bidRequest);
    expect(r1.headers['content-encoding']).toBe('gzip');
    const text1 = r1.status === 204 ? '' : gunzipSync(r1.raw).toString('utf8');
    const text2 = r2.raw.toString('utf8');
    const port = (u: string) => new URL(u).port;
    expect(text1.replaceAll(port(one.url), 'PORT')).toBe(text2.replaceAll(port(two.url), 'PORT'));
  });

  it('counts win, billing, loss and pixel hits and serves them at /stats', async () => {
    const s = await sim({ latencyMs: 0 });
    const origin = s.url.replace('/openrtb2', '');
    for (const path of ['/win?price=1.25&auction=x', '/win?price=0.75', '/billing?price=1', '/loss?reason=102', '/loss?reason=102', '/loss?reason=100', '/pixel?price=1']) {
      const res = await undiciRequest(`${origin}${path}`);
      await res.body.dump();
      expect(res.statusCode).toBe(200);
    }
    const res = await undiciRequest(`${origin}/stats`);
    const stats = (await res.body.json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ wins: 2, winPriceTotal: 2, billings: 1, losses: 3, lossReasons: { '102': 2, '100': 1 }, pixels: 1 });
    expect(s.stats()).toEqual(stats);
  });

  it('bids through the dispatcher with gzip both ways', async () => {
    const s = await sim({ bidProbability: 1, latencyMs: '1-3', seed: 1 });
    const dispatcher = createDemandDispatcher({
      registry: createAdapterRegistry(),
      clock: systemClock,
      metrics: createMetrics(),
      log: silentLogger(),
      rates: bundledConverter,
      ids: createSequentialIds(),
      exchangeDomain: 'adx.example',
      maxResponseBytes: 1024 * 1024,
      connectionsPerPartner: 2,
      tmaxMarginMs: 20,
    });
    try {
      const partner: DemandPartnerRecord = { id: 'dsp_sim', name: 'sim', endpoint: s.url, adapter: 'openrtb25', timeoutMs: 500, gzip: true, qpsLimit: null, currency: 'USD', enabled: true, openrtbVersion: '2.5' as const, gvlVendorId: null, mediaTypes: ['banner', 'video', 'audio', 'native'], createdAtMs: 0, updatedAtMs: 0 };
      const { bids, calls } = await dispatcher.dispatch(bidRequest, [partner], { publisherId: 'pub_1', deadlineMonoMs: systemClock.monotonicMs() + 1000 });
      expect(calls[0]).toMatchObject({ outcome: 'bids', errors: [] });
      expect(bids.map((b) => b.bid.impid)).toEqual(['a', 'b', 'c', 'v']);
      expect(bids.every((b) => b.partnerRequestId === 'req_1' && b.seat === 'dsp-sim')).toBe(true);
    } finally {
      await dispatcher.close();
    }
  });

  it('parses latency ranges and rejects bad ones', () => {
    expect(parseLatencyRange('5')).toEqual([5, 5]);
    expect(parseLatencyRange('5-40')).toEqual([5, 40]);
    expect(() => parseLatencyRange('40-5')).toThrow(RangeError);
    expect(() => parseLatencyRange('fast')).toThrow(RangeError);
  });

  it('registers the dsp-sim command with its flags', () => {
    const program = new Command();
    registerDspSimCommand(program);
    const command = program.commands.find((c) => c.name() === 'dsp-sim');
    expect(command).toBeDefined();
    const flags = command!.options.map((o) => o.long);
    expect(flags).toEqual(
      expect.arrayContaining(['--port', '--host', '--bid-probability', '--cpm-min', '--cpm-max', '--latency-ms', '--currency', '--seat', '--name', '--seed']),
    );
  });
});
