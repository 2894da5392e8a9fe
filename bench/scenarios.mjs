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
 * @typedef {object} Scenario
 * @property {'a' | 'b' | 'c' | 'd' | 'e' | 'f'} id
 * @property {string} title short label for the table
 * @property {number} partners how many dsp-sim partners the exchange and baseline call
 * @property {boolean} gzip request body gzip (`content-encoding: gzip`) and `accept-encoding: gzip`
 * @property {boolean} webhooks one endpoint subscribed to `auction.complete` with a receiver
 * @property {boolean} overload offer 2x the saturation rate measured in (a)
 * @property {'banner' | 'video'} [media] the imp's media type (default banner; `video`: the
 *   dsp-sim answers a VAST 4.2 InLine, which adx reads and gets its impression tracker into, and
 *   the baseline passes through as it is)
 */

/** @type {Scenario[]} */
export const SCENARIOS = [
  { id: 'a', title: 'a) 1 partner', partners: 1, gzip: false, webhooks: false, overload: false },
  { id: 'b', title: 'b) 3 partners', partners: 3, gzip: false, webhooks: false, overload: false },
  { id: 'c', title: 'c) gzip req+resp', partners: 1, gzip: true, webhooks: false, overload: false },
  { id: 'd', title: 'd) webhooks', partners: 1, gzip: false, webhooks: true, overload: false },
  { id: 'e', title: 'e) 2x saturation', partners: 1, gzip: false, webhooks: false, overload: true },
  { id: 'f', title: 'f) video imp (VAST)', partners: 1, gzip: false, webhooks: false, overload: false, media: 'video' },
];

/**
 * The OpenRTB 2.5 bid request every scenario sends: one 300x250 banner imp with a 0.50 USD
 * floor, a site, a device, second price, `tmax` = TMAX_MS. The same bytes every time (request ids
 * need not be unique; the exchange mints its own auction ids).
 * @returns {object}
 */
export function benchBidRequest() {
  return {
    id: 'bench-req-1',
    imp: [{ id: '1', banner: { w: 300, h: 250, format: [{ w: 300, h: 250 }] }, bidfloor: 0.5, bidfloorcur: 'USD', secure: 1 }],
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
  const json = JSON.stringify(scenario.media === 'video' ? benchVideoBidRequest() : benchBidRequest());
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  if (!scenario.gzip) return { headers, body: json };
  return { headers: { ...headers, 'content-encoding': 'gzip', 'accept-encoding': 'gzip' }, body: gzipSync(Buffer.from(json)) };
}
