/**
 * Prebid.js in a real browser against adx (DESIGN section 2, "Browser supply (Prebid.js)";
 * issue 8): Debian's Chromium driven by playwright-core loads examples/prebid/index.html with the
 * Prebid.js 11 bundle built from npm, Prebid's Prebid Server adapter posts OpenRTB to a real
 * exchange on loopback, a fake DSP bids, the page renders the winner with `pbjs.renderAd`, and
 * the nurl pixel in the rendered ad reaches adx, which forwards the win to the DSP's own nurl.
 *
 * Skipped with a message when no Chromium is installed (`apt-get install -y chromium`; override
 * the path with ADX_CHROMIUM_PATH). Playwright's own browser downloads are never used.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumFor, launchChromium, type LaunchedChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrebidBundle } from '../../examples/prebid/build.mjs';
import { startExampleServer, type ExampleServer } from '../../examples/prebid/serve.mjs';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { scrape, sumOf } from '../faults/metrics-text.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const hasChromium = chromiumFor('Prebid.js browser test');

const outputDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'prebid');
const AD_UNIT_CODE = 'div-adx-300x250';
const CREATIVE_TEXT = 'ADX TEST CREATIVE';
/** The creative the fake DSP bids with: a 300x250 block the test can find in the ad iframe. */
const CREATIVE =
  `<div id="adx-test-creative" style="width:300px;height:250px;box-sizing:border-box;display:flex;align-items:center;justify-content:center;` +
  `background:#1f6feb;color:#fff;font:bold 22px sans-serif;border:4px solid #0b3d91">${CREATIVE_TEXT}</div>`;

/** What the example page exposes as `window.adxExample`. */
interface PageState {
  state: 'loading' | 'done';
  bidResponses: Array<{ bidder: string; cpm: number; currency: string; width: number; height: number; adId: string; creativeId: string }>;
  errors: Array<{ bidder?: string; status?: number }>;
  winner: { cpm: number; currency: string; adId: string; width: number; height: number } | null;
}

/** One request or answer the browser made or got, from Playwright's network events. */
interface NetworkEntry {
  method: string;
  url: string;
  status?: number;
  requestHeaders?: Record<string, string>;
  postData?: Buffer | null;
  failure?: string;
}

/** A page run: the page, its final state and its network log. */
interface PageRun {
  page: Page;
  state: PageState;
  requests: NetworkEntry[];
  responses: NetworkEntry[];
  failures: NetworkEntry[];
  /** The bid request(s) to adx as the browser sent them. */
  bidPosts(): NetworkEntry[];
  /** Answers to those bid requests. */
  bidAnswers(): NetworkEntry[];
  /** Statuses of the CORS preflights the browser sent to adx (seen through the DevTools protocol). */
  preflights(): number[];
}

describe.skipIf(!hasChromium)('Prebid.js in Chromium against adx', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  let site: ExampleServer;
  let context: BrowserContext;
  let browser: LaunchedChromium | undefined;
  /** Publisher with browser access for 127.0.0.1 and localhost (where the page is served). */
  let browserPub: { id: string; apiKey: string };
  /** Publisher with browser access for another site only. */
  let elsewherePubId: string;

  beforeAll(async () => {
    const [, dspStarted] = await Promise.all([buildPrebidBundle({ minify: false }), startFakeDsp()]);
    dsp = dspStarted;
    // The DSP's own nurl points back at itself, so the test sees adx forward the win.
    dsp.setBehaviour(
      bidEveryImp({ price: 2.5, seat: 'dsp-seat', bid: { adm: CREATIVE, nurl: `${dsp.origin}/dsp-win?price=\${AUCTION_PRICE}&imp=\${AUCTION_IMP_ID}`, crid: 'creative-42' } }),
    );
    // First price, so the page's cpm and the DSP's ${AUCTION_PRICE} are the bid price exactly.
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url, timeout_ms: 800 }] });
    const created = await ex.admin('POST', '/v1/publishers', { name: 'Browser Publisher', domains: ['127.0.0.1', 'localhost'], browser_access: true });
    expect(created.status).toBe(201);
    browserPub = { id: created.json().id, apiKey: created.json().api_key };
    const elsewhere = await ex.admin('POST', '/v1/publishers', { name: 'Elsewhere', domains: ['news.example'], browser_access: true });
    expect(elsewhere.status).toBe(201);
    elsewherePubId = elsewhere.json().id;
    site = await startExampleServer();
    browser = await launchChromium({
      viewport: { width: 800, height: 600 },
    });
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await ex?.close();
    await dsp?.close();
  });

  /** Opens the example page with `query` and waits until its auction is over (rendered or no bid). */
  async function runPage(query: Record<string, string>): Promise<PageRun> {
    const page = await context.newPage();
    const requests: NetworkEntry[] = [];
    const responses: NetworkEntry[] = [];
    const failures: NetworkEntry[] = [];
    page.on('request', (req) => {
      requests.push({ method: req.method(), url: req.url(), requestHeaders: req.headers(), postData: req.postDataBuffer() });
    });
    page.on('response', (res) => {
      responses.push({ method: res.request().method(), url: res.url(), status: res.status() });
    });
    page.on('requestfailed', (req) => {
      failures.push({ method: req.method(), url: req.url(), failure: req.failure()?.errorText ?? 'failed' });
    });
    // Playwright's own events leave CORS preflights out; Chromium's DevTools protocol reports
    // them with initiator type "preflight".
    const preflightIds = new Set<string>();
    const preflightStatuses: number[] = [];
    const cdp = await context.newCDPSession(page);
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.initiator.type === 'preflight' && e.request.method === 'OPTIONS' && e.request.url.startsWith(ex.url)) preflightIds.add(e.requestId);
    });
    cdp.on('Network.responseReceived', (e) => {
      if (preflightIds.has(e.requestId)) preflightStatuses.push(e.response.status);
    });
    await cdp.send('Network.enable');
    const params = new URLSearchParams({ adx: ex.url, ...query });
    await page.goto(`${site.url}/?${params}`);
    await page.waitForFunction(() => (globalThis as unknown as { adxExample?: PageState }).adxExample?.state === 'done', null, { timeout: 15_000 });
    const state = await page.evaluate(() => (globalThis as unknown as { adxExample: PageState }).adxExample);
    // Everything the page loaded came from loopback: the page server, adx, nothing else.
    expect(requests.map((r) => r.url).filter((url) => !url.startsWith('http://127.0.0.1:'))).toEqual([]);
    const isBid = (e: NetworkEntry) => e.url.startsWith(`${ex.url}/v1/openrtb/2.5/bidrequest`) && e.method === 'POST';
    return { page, state, requests, responses, failures, bidPosts: () => requests.filter(isBid), bidAnswers: () => responses.filter(isBid), preflights: () => preflightStatuses };
  }

  /** Waits for the rendered ad and the win notices; returns the creative's text in the ad iframe. */
  async function expectRenderedAndWon(run: PageRun, winsBefore: number): Promise<string> {
    // pbjs.renderAd fills our iframe with Prebid's renderer, which puts the ad markup in a child
    // iframe (srcdoc): the creative sits two frames down.
    const creative = run.page.frameLocator(`iframe[name="prebid_ads_iframe_${AD_UNIT_CODE}"]`).frameLocator('iframe').locator('#adx-test-creative');
    const text = await creative.textContent({ timeout: 5_000 });
    // The nurl pixel Prebid.js put in front of the ad markup reached adx...
    await expect.poll(async () => sumOf(await scrape(ex.url), 'adx_notices_total', { kind: 'win', outcome: 'first' }), { timeout: 5_000 }).toBe(winsBefore + 1);
    // (Prebid.js put its cpm in for ${AUCTION_PRICE} before firing.)
    const win = run.responses.find((r) => r.url.startsWith(`${ex.url}/v1/notice/win?`));
    expect(win?.status).toBe(200);
    expect(new URL(win!.url).searchParams.get('price')).toBe('2.5');
    // ...and adx called the DSP's own nurl with the clearing price in the DSP's currency.
    await expect.poll(() => dsp.hits.filter((h) => h.path === '/dsp-win').length, { timeout: 5_000 }).toBe(1);
    const hit = dsp.hits.find((h) => h.path === '/dsp-win')!;
    expect(hit.query.imp).toBe(AD_UNIT_CODE);
    expect(Number(hit.query.price)).toBe(2.5);
    return text ?? '';
  }

  async function winsSoFar(): Promise<number> {
    return sumOf(await scrape(ex.url), 'adx_notices_total', { kind: 'win', outcome: 'first' });
  }

  it('plain: the bid arrives, the ad renders in its iframe, the win reaches adx and the DSP', async () => {
    dsp.hits.length = 0;
    const before = await winsSoFar();
    const run = await runPage({ account: browserPub.id });

    expect(run.failures).toEqual([]);
    const [post] = run.bidPosts();
    expect(post?.requestHeaders?.['content-type']).toMatch(/^text\/plain/);
    expect(post?.requestHeaders?.authorization).toBeUndefined();
    expect(run.bidAnswers().map((r) => r.status)).toEqual([200]);
    // What adx got, forwarded to the DSP: the ad unit code as imp id, the Prebid bidder params.
    const sent = dsp.requests.at(-1)!.body;
    expect(sent.imp[0].id).toBe(AD_UNIT_CODE);

    expect(run.state.errors).toEqual([]);
    expect(run.state.bidResponses).toHaveLength(1);
    expect(run.state.bidResponses[0]).toMatchObject({ bidder: 'adx', width: 300, height: 250, creativeId: 'creative-42' });
    expect(run.state.bidResponses[0]!.cpm).toBe(2.5);
    expect(run.state.winner?.adId).toBe(run.state.bidResponses[0]!.adId);

    expect(await expectRenderedAndWon(run, before)).toBe(CREATIVE_TEXT);

    await mkdir(outputDir, { recursive: true });
    await run.page.locator(`#${AD_UNIT_CODE}`).screenshot({ path: join(outputDir, 'rendered.png') });
    await run.page.screenshot({ path: join(outputDir, 'page.png') });
    await run.page.close();
  });

  it('gzip (endpointCompression): a gzip body with ?gzip=1, and the same outcome', async () => {
    dsp.hits.length = 0;
    const before = await winsSoFar();
    const run = await runPage({ account: browserPub.id, gzip: '1' });

    const [post] = run.bidPosts();
    expect(new URL(post!.url).searchParams.get('gzip')).toBe('1');
    expect(post!.requestHeaders?.['content-encoding']).toBeUndefined();
    expect([...(post!.postData ?? Buffer.alloc(0)).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(run.bidAnswers().map((r) => r.status)).toEqual([200]);
    expect(run.state.bidResponses).toHaveLength(1);
    expect(await expectRenderedAndWon(run, before)).toBe(CREATIVE_TEXT);
    await run.page.close();
  });

  it('Bearer via customHeaders: the browser preflights, then the keyed request bids', async () => {
    dsp.hits.length = 0;
    const before = await winsSoFar();
    // No account needed: the key names the publisher.
    const run = await runPage({ account: 'ignored-with-a-key', bearer: browserPub.apiKey });

    const [post] = run.bidPosts();
    expect(post?.requestHeaders?.authorization).toBe(`Bearer ${browserPub.apiKey}`);
    expect(run.preflights()).toEqual([204]);
    expect(run.bidAnswers().map((r) => r.status)).toEqual([200]);
    expect(run.state.bidResponses).toHaveLength(1);
    expect(await expectRenderedAndWon(run, before)).toBe(CREATIVE_TEXT);
    await run.page.close();
  });

  it('an origin outside the publisher\'s domains: a 403 the page can read (not status 0), no bid', async () => {
    const dspCalls = dsp.requests.length;
    const run = await runPage({ account: elsewherePubId });

    expect(run.bidAnswers().map((r) => r.status)).toEqual([403]);
    expect(run.failures.filter((f) => f.url.startsWith(ex.url))).toEqual([]);
    // Prebid.js itself read the status: the CORS headers are on the error answer too.
    expect(run.state.errors.map((e) => e.status)).toEqual([403]);
    expect(run.state.bidResponses).toEqual([]);
    expect(run.state.winner).toBeNull();
    expect(dsp.requests.length).toBe(dspCalls);
    await run.page.close();
  });

  it('no bid: the DSP answers 204, adx answers 204, the slot stays empty', async () => {
    dsp.setBehaviour('no_bid');
    const dspCalls = dsp.requests.length;
    const run = await runPage({ account: browserPub.id });

    expect(dsp.requests.length).toBe(dspCalls + 1);
    expect(run.bidAnswers().map((r) => r.status)).toEqual([204]);
    expect(run.failures).toEqual([]);
    expect(run.state.errors).toEqual([]);
    expect(run.state.bidResponses).toEqual([]);
    expect(run.state.winner).toBeNull();
    expect(await run.page.locator(`#${AD_UNIT_CODE}`).textContent()).toBe('no bid');
    expect(await run.page.locator(`#${AD_UNIT_CODE} iframe`).count()).toBe(0);
    await run.page.close();
  });
});
