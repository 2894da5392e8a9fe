/**
 * Generated OpenRTB 2.5 traffic for the demo and the benchmark: realistic site and app
 * requests mixing every media type (banner sizes, instream and outstream video, audio, native,
 * and banner+video multi-format imps), floors in several currencies, occasional multi-imp
 * requests and deals. Deterministic for a given seed.
 */
import type { BidRequest, Imp } from '../domain/openrtb.js';

/** A small deterministic PRNG (mulberry32) returning floats in [0, 1). */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIZES: Array<[number, number]> = [
  [300, 250],
  [728, 90],
  [320, 50],
  [160, 600],
  [300, 600],
];
const FLOORS: Array<{ bidfloor: number; bidfloorcur?: string }> = [
  { bidfloor: 0 },
  { bidfloor: 0.3 },
  { bidfloor: 0.5, bidfloorcur: 'USD' },
  { bidfloor: 0.4, bidfloorcur: 'EUR' },
  { bidfloor: 80, bidfloorcur: 'JPY' },
];

function pick<T>(rng: () => number, list: T[]): T {
  return list[Math.floor(rng() * list.length)]!;
}

function bannerImp(rng: () => number, id: string): Imp {
  const [w, h] = pick(rng, SIZES);
  const floor = pick(rng, FLOORS);
  // Not `secure`: the demo's partners serve their creatives over plain http on loopback, and a
  // secure imp drops every bid whose markup loads an `http://` resource (loss 207).
  const imp: Imp = { id, banner: rng() < 0.5 ? { w, h } : { format: [{ w, h }] }, ...floor };
  const deals = rng();
  // One imp in ten offers an open-auction deal; one in twenty is a private auction with a
  // fixed-price deal (the deal floor is the price) next to a first-price one.
  if (deals < 0.1) imp.pmp = { private_auction: 0, deals: [{ id: 'deal-demo-1', bidfloor: 1.5, bidfloorcur: 'USD' }] };
  else if (deals < 0.15) {
    imp.pmp = {
      private_auction: 1,
      deals: [
        { id: 'deal-demo-fixed', bidfloor: 2, bidfloorcur: 'USD', at: 3 },
        { id: 'deal-demo-pmp', bidfloor: 1, bidfloorcur: 'USD', at: 1 },
      ],
    };
  }
  return imp;
}

const VIDEO = { mimes: ['video/mp4', 'video/webm'], protocols: [2, 3, 5, 6, 7, 8], w: 640, h: 360, minduration: 5, maxduration: 30, linearity: 1 };
const AUDIO = { mimes: ['audio/mp4', 'audio/mpeg'], protocols: [2, 3, 5, 6, 7, 8], minduration: 5, maxduration: 30, feed: 1 };
/** A Native 1.2 request (IAB Native Ads API 1.2): title, main image, sponsoredBy, description. */
const NATIVE_REQUEST = JSON.stringify({
  ver: '1.2',
  context: 2,
  plcmttype: 1,
  assets: [
    { id: 1, required: 1, title: { len: 90 } },
    { id: 2, required: 1, img: { type: 3, wmin: 300, hmin: 157 } },
    { id: 3, required: 1, data: { type: 1 } },
    { id: 4, data: { type: 2, len: 140 } },
  ],
  eventtrackers: [{ event: 1, methods: [1] }],
});

/** One imp of a random media type: banner 55%, video 20% (a quarter of it banner+video), native 15%, audio 10%. */
function mixedImp(rng: () => number, id: string): Imp {
  const roll = rng();
  if (roll < 0.55) return bannerImp(rng, id);
  const floor = pick(rng, FLOORS);
  if (roll < 0.75) {
    const imp: Imp = { id, video: { ...VIDEO, placement: rng() < 0.5 ? 1 : 3 }, ...floor };
    if (rng() < 0.25) imp.banner = { w: 300, h: 250 }; // multi-format: either may win
    return imp;
  }
  if (roll < 0.9) return { id, native: { request: NATIVE_REQUEST, ver: '1.2' }, ...floor };
  return { id, audio: { ...AUDIO }, ...floor };
}

/** The `n`-th generated bid request. `tmax` defaults to 100 ms (the exchange default). */
export function generateBidRequest(rng: () => number, n: number, tmaxMs = 100): BidRequest {
  const impCount = rng() < 0.15 ? 2 : 1;
  const imp: Imp[] = [];
  for (let i = 0; i < impCount; i++) imp.push(mixedImp(rng, String(i + 1)));
  const request: BidRequest = {
    id: `demo-${n}`,
    imp,
    tmax: tmaxMs,
    cur: rng() < 0.2 ? ['EUR', 'USD'] : ['USD'],
    device: { ua: 'Mozilla/5.0 (X11; Linux x86_64)', ip: '203.0.113.7', devicetype: 2, language: 'en' },
    user: { id: `user-${Math.floor(rng() * 1000)}` },
    regs: { ext: { gdpr: 0 } },
  };
  if (rng() < 0.7) {
    request.site = { id: 'site-1', domain: 'news.example', page: 'https://news.example/article', publisher: { id: 'pub-demo' } };
  } else {
    request.app = { id: 'app-1', bundle: 'com.example.game', publisher: { id: 'pub-demo' } };
  }
  return request;
}
