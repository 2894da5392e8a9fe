/**
 * The benchmark's scenarios (issue 6) and the bid request they send. Every scenario runs the
 * exchange and the baseline against the same simulated DSPs (answering at once, bidding on every
 * imp). Importing this module does nothing.
 */
import { gzipSync } from 'node:zlib';

/** The bid path under test (DESIGN section 2). */
export const BID_PATH = '/v1/openrtb/2.5/bidrequest';

/** `tmax` of every benchmark request, ms; an answer slower than this is "late". */
export const TMAX_MS = 100;

/**
 * One row of the table. To add a scenario, append an entry: `runScenario` (bench/run-scenario.mjs)
 * reads only these fields, and `bidRequest` lets a scenario send its own request (e.g. a video
 * imp) instead of `benchBidRequest()`.
 * @typedef {object} Scenario
 * @property {string} id short lower-case id used by `--scenarios`
 * @property {string} title short label for the table
 * @property {number} partners how many dsp-sim partners the exchange and baseline call
 * @property {boolean} gzip request body gzip (`content-encoding: gzip`) and `accept-encoding: gzip`
 * @property {boolean} webhooks one endpoint subscribed to `auction.complete` with a receiver
 * @property {boolean} overload offer 2x the saturation rate measured in (a)
 * @property {boolean} [gdpr] the request carries `regs.gdpr: 1` and a TCF v2 consent string (DESIGN section 11)
 * @property {'throughput' | 'cold-start'} [kind] `throughput` (default): baseline vs adx runs and
 *   the paced latency run; `cold-start`: a fresh exchange per pair, a burst as soon as `/readyz`
 *   answers 200 (bench/run-cold-start.mjs), no baseline
 * @property {() => object} [bidRequest] the OpenRTB 2.5 request to send (default `benchBidRequest()`)
 * @property {'banner' | 'video'} [media] the imp's media type (default banner; `video`: the
 *   dsp-sim answers a VAST 4.2 InLine, which adx reads and gets its impression tracker into, and
 *   the baseline passes through as it is)
 */

/** The cold-start burst (issue 15): clients x requests each, sent as soon as `/readyz` answers 200, with this tmax. */
export const COLD_BURST = { clients: 4, requestsPerClient: 10, tmaxMs: 120 };

/** @type {Scenario[]} */
export const SCENARIOS = [
  { id: 'a', title: 'a) 1 partner', partners: 1, gzip: false, webhooks: false, overload: false },
  { id: 'b', title: 'b) 3 partners', partners: 3, gzip: false, webhooks: false, overload: false },
  { id: 'c', title: 'c) gzip req+resp', partners: 1, gzip: true, webhooks: false, overload: false },
  { id: 'd', title: 'd) webhooks', partners: 1, gzip: false, webhooks: true, overload: false },
  { id: 'e', title: 'e) 2x saturation', partners: 1, gzip: false, webhooks: false, overload: true },
  { id: 'f', title: 'f) a + GDPR consent', partners: 1, gzip: false, webhooks: false, overload: false, gdpr: true },
  { id: 'g', title: 'g) video imp (VAST)', partners: 1, gzip: false, webhooks: false, overload: false, media: 'video' },
  { id: 'cold', title: 'cold) burst at ready', partners: 1, gzip: false, webhooks: false, overload: false, kind: 'cold-start', bidRequest: () => ({ ...benchBidRequest(), tmax: COLD_BURST.tmaxMs }) },
];

/**
 * The TC string of scenario f: TCF v2.2, encoded with `@iabtechlabtcf/core` from a TCModel giving
 * purposes 1-4 and 7 and special feature 1, vendor consent to GVL ids 11 and 22 (the bench
 * partners are seeded with `gvl_vendor_id` 11), so the partner is called with the request
 * unreduced and the figure is the cost of reading and (cached) decoding the signals.
 */
export const BENCH_TC_STRING = 'CQuMEMAQuMEMAAKABAENBkFoAPIAAEIAAAYgALAAgBACEAAAAAQAAAAA.IAAA.YAAAAAAAAAAA';

/** GVL id of every seeded bench partner. */
export const BENCH_GVL_VENDOR_ID = 11;

/**
 * The OpenRTB 2.5 bid request every scenario sends: one 300x250 banner imp with a 0.50 USD
 * floor, a site, a device, second price, `tmax` = TMAX_MS. Not `secure`: the simulated DSPs serve
 * plain-http markup on loopback, which a secure imp filters out (loss reason 207). The same bytes every time (request ids
 * need not be unique; the exchange mints its own auction ids).
 * @returns {object}
 */
export function benchBidRequest() {
  return {
    id: 'bench-req-1',
    imp: [{ id: '1', banner: { w: 300, h: 250, format: [{ w: 300, h: 250 }] }, bidfloor: 0.5, bidfloorcur: 'USD' }],
    site: { id: 'site-1', domain: 'news.example', page: 'https://news.example/article/1', publisher: { id: 'pub-bench' } },
    device: { ua: 'Mozilla/5.0 (X11; Linux x86_64) bench', ip: '203.0.113.7', devicetype: 2, language: 'en' },
    user: { id: 'user-bench-1' },
    at: 2,
    cur: ['USD'],
    tmax: TMAX_MS,
  };
}

/**
 * Scenario (f)'s request: `benchBidRequest` with one instream video imp (640x360 mp4, 5-30 s,
 * VAST 2-4 protocols) instead of the banner, same floor. Not `secure`: the dsp-sim's VAST
 * trackers and media are plain-http loopback URLs, which a secure imp refuses (loss 207).
 * @returns {object}
 */
export function benchVideoBidRequest() {
  const video = { mimes: ['video/mp4'], protocols: [2, 3, 5, 6, 7, 8], w: 640, h: 360, minduration: 5, maxduration: 30, linearity: 1, placement: 1 };
  return { ...benchBidRequest(), imp: [{ id: '1', video, bidfloor: 0.5, bidfloorcur: 'USD' }] };
}

/**
 * Headers and body for a scenario, authenticated with `apiKey` (the baseline ignores the key).
 * @param {Scenario} scenario
 * @param {string} apiKey
 * @returns {{ headers: Record<string, string>, body: string | Buffer }}
 */
export function requestFor(scenario, apiKey) {
  const request = scenario.bidRequest ? scenario.bidRequest() : scenario.media === 'video' ? benchVideoBidRequest() : benchBidRequest();
  const json = JSON.stringify(scenario.gdpr ? { ...request, regs: { gdpr: 1 }, user: { ...request.user, consent: BENCH_TC_STRING } } : request);
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  if (!scenario.gzip) return { headers, body: json };
  return { headers: { ...headers, 'content-encoding': 'gzip', 'accept-encoding': 'gzip' }, body: gzipSync(Buffer.from(json)) };
}
