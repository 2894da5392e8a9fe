/**
 * Prebid.js video and native in a real browser against adx (DESIGN sections 2 and 4; issue 13):
 * Debian's Chromium loads examples/prebid/video-native.html with a Prebid.js 11 bundle (Prebid
 * Server adapter, `cache: {useLocal: true}`, and @dailymotion/vast-client), an instream video ad
 * unit and a native ad unit go to a real exchange on loopback, a fake DSP answers a VAST 4 pod
 * and a Native 1.2 response, and:
 * - the video bid arrives with mediaType `video`, its VAST carrying adx's impression URL in each
 *   ad; the page parses it with the VAST client and fires its impression trackers, which reach
 *   adx (one billable impression) and the DSP's own tracker;
 * - the native bid arrives with mediaType `native`, adx's impression event tracker in it; the
 *   page fires it and the impression counts.
 *
 * Skipped with a message when no Chromium is installed (ADX_CHROMIUM_PATH overrides the path).
 */
import { readFile } from 'node:fs/promises';
import type { BrowserContext } from 'playwright-core';
import { chromiumFor, launchChromium, type LaunchedChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVideoNativeBundle } from '../../examples/prebid/build.mjs';
import { startExampleServer, type ExampleServer } from '../../examples/prebid/serve.mjs';
import type { BidRequest } from '../../src/domain/openrtb.js';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { scrape, sumOf } from '../faults/metrics-text.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const hasChromium = chromiumFor('Prebid.js video/native browser test');

interface PageState {
  state: 'loading' | 'done';
  bids: Array<{ adUnitCode: string; bidder: string; mediaType: string; cpm: number; vastXml: string | null; native: { assets: unknown[]; eventtrackers?: Array<{ event: number; method: number; url: string }> } | null }>;
  errors: unknown[];
  video: { version: string; impressions: string[]; mediaFiles: string[]; vastUrl: string | null } | null;
  native: { title: string; image: string; sponsoredBy: string; link: string; impressions: string[] } | null;
}

describe.skipIf(!hasChromium)('Prebid.js video and native in Chromium against adx', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  let site: ExampleServer;
  let context: BrowserContext;
  let browser: LaunchedChromium | undefined;
  let publisherId: string;
  /** The fake DSP's origin without its scheme (`//127.0.0.1:port`). */
  let dspHost: string;

  beforeAll(async () => {
    const [, started] = await Promise.all([buildVideoNativeBundle({ minify: false }), startFakeDsp()]);
    dsp = started;
    // Prebid.js marks imps secure (imp.secure = 1), so markup may load nothing over http://: the
    // DSP's own trackers here are protocol-relative and resolve against the (loopback, http) page.
    dspHost = dsp.origin.replace(/^http:/, '');
    const vast = (await readFile(new URL('../fixtures/vast/vast4-pod.xml', import.meta.url), 'utf8')).replaceAll('https://dsp.example/imp/', `${dspHost}/dsp-imp/`);
    dsp.setBehaviour((body: BidRequest | undefined) => {
      if (!body) return { status: 400 };
      const bid = body.imp.map((imp, i) => {
        const base = { id: `b${i}`, impid: imp.id, price: 3, crid: `cr-${i}`, adomain: ['brand.example'] };
        if (imp.video) return { ...base, adm: vast, mtype: 2, dur: 30, w: 640, h: 360 };
        return {
          ...base,
          adm: JSON.stringify({
            native: {
              ver: '1.2',
              assets: [
                { id: 1, title: { text: 'A native ad' } },
                { id: 2, img: { url: `${dspHost}/img.png`, w: 300, h: 250 } },
                { id: 3, data: { value: 'Brand' } },
              ],
              link: { url: 'https://brand.example/' },
              eventtrackers: [{ event: 1, method: 1, url: `${dspHost}/dsp-native-imp` }],
            },
          }),
        };
      });
      return { status: 200, body: { id: body.id, cur: 'USD', seatbid: [{ seat: 'dsp-seat', bid }] } };
    });
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url, timeout_ms: 800 }] });
    const created = await ex.admin('POST', '/v1/publishers', { name: 'Video Publisher', domains: ['127.0.0.1'], browser_access: true });
    expect(created.status).toBe(201);
    publisherId = created.json().id;
    site = await startExampleServer();
    browser = await launchChromium();
    context = browser.context;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await ex?.close();
    await dsp?.close();
  });

  it('video bid as mediaType video with our impression in its VAST; native as native; both impressions count', async () => {
    const impressionsBefore = sumOf(await scrape(ex.url), 'adx_notices_total', { kind: 'impression', outcome: 'first' });
    const page = await context.newPage();
    const params = new URLSearchParams({ adx: ex.url, account: publisherId });
    await page.goto(`${site.url}/video-native.html?${params}`);
    await page.waitForFunction(() => (globalThis as unknown as { adxExample?: PageState }).adxExample?.state === 'done', null, { timeout: 20_000 });
    const state = await page.evaluate(() => (globalThis as unknown as { adxExample: PageState }).adxExample);

    expect(state.errors).toEqual([]);
    // What the DSP was offered: the Prebid ad units as a video imp and a native imp.
    const sent = dsp.requests.at(-1)!.body as BidRequest;
    expect(sent.imp.map((i) => [i.id, Object.keys(i).filter((k) => ['banner', 'video', 'audio', 'native'].includes(k))])).toEqual([
      ['video-instream', ['video']],
      ['native-infeed', ['native']],
    ]);

    const video = state.bids.find((b) => b.adUnitCode === 'video-instream')!;
    expect(video).toMatchObject({ bidder: 'adx', mediaType: 'video', cpm: 3 });
    const ours = new RegExp(`^${ex.url}/v1/notice/impression\\?t=[A-Za-z0-9_-]+$`);
    // The page parsed the VAST with @dailymotion/vast-client: two ads, each with the DSP's and adx's impression.
    expect(state.video?.version).toBe('4.2');
    expect(state.video?.impressions.filter((u) => ours.test(u))).toHaveLength(2);
    expect(state.video?.impressions.filter((u) => u.startsWith(`${dspHost}/dsp-imp/`)).sort()).toEqual([`${dspHost}/dsp-imp/1`, `${dspHost}/dsp-imp/2`]);
    expect(state.video?.mediaFiles).toEqual(['https://cdn.example/1.mp4']);

    const native = state.bids.find((b) => b.adUnitCode === 'native-infeed')!;
    expect(native).toMatchObject({ bidder: 'adx', mediaType: 'native', cpm: 3 });
    expect(native.native?.eventtrackers?.some((t) => t.event === 1 && t.method === 1 && ours.test(t.url))).toBe(true);
    expect(state.native).toMatchObject({ title: 'A native ad', sponsoredBy: 'Brand', link: 'https://brand.example/' });

    // The trackers the page fired reached adx: one impression per bid (the pod's two URLs are one bid's).
    await expect.poll(async () => sumOf(await scrape(ex.url), 'adx_notices_total', { kind: 'impression', outcome: 'first' }), { timeout: 5_000 }).toBe(impressionsBefore + 2);
    // ...and the DSP's own trackers were kept and fired too.
    await expect.poll(() => dsp.hits.filter((h) => h.path.startsWith('/dsp-imp/')).length, { timeout: 5_000 }).toBe(2);
    await expect.poll(() => dsp.hits.filter((h) => h.path === '/dsp-native-imp').length, { timeout: 5_000 }).toBe(1);
    await page.close();
  });
});
