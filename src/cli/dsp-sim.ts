/**
 * `adx dsp-sim`: a simulated OpenRTB 2.5 demand partner for the demo, tests and benchmarks.
 *
 * - `POST` (any path): an OpenRTB 2.5 BidResponse (section 4.2) with one bid per imp (each with
 *   probability `bidProbability`), or `204` when it bids on nothing. The bid's type is one the
 *   imp offers (picked at random on a multi-format imp), with `mtype` set: banner HTML, a VAST
 *   4.2 InLine for video and audio (media file, impression, quartile trackers; `dur`), a Native
 *   1.2 response for native (`dsp-sim-markup.ts`). Prices are
 *   uniform in [cpmMin, cpmMax] CPM and never below the imp's floor (or the deal's floor for a
 *   deal bid); deal bids on imps with `pmp.deals` (always for a private auction, else sometimes).
 *   Each bid carries `adm` with `${AUCTION_PRICE}` inside an img URL and an html comment, its
 *   own `nurl`/`burl`/`lurl` pointing back here with the OpenRTB 2.5 macros (section 4.4),
 *   `adomain`, `crid`, `cid`, `adid`, `w`, `h`. Gzip request bodies are read; the answer is
 *   gzipped when `accept-encoding` allows it.
 * - `GET /win`, `/billing`, `/loss`, `/pixel`, `/track?event=` (VAST tracking events): counted
 *   (see `stats()`); `GET /media/*`: a few bytes standing in for the media file;
 *   `GET /stats`: the counts as JSON.
 *
 * It holds no exchange logic: it only imports OpenRTB types.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { InvalidArgumentError, type Command } from 'commander';
import type { Bid, BidRequest, BidResponse, Imp } from '../domain/openrtb.js';
import { durationFor, nativeFor, vastFor } from './dsp-sim-markup.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Options of the simulated DSP. Every field has a default. */
export interface DspSimOptions {
  /** TCP port; 0 (default) = an ephemeral port. */
  port?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Probability in [0, 1] of bidding on each banner imp (default 0.8). */
  bidProbability?: number;
  /** Bid price range, CPM in `currency` (default 0.5 to 5). */
  cpmMin?: number;
  cpmMax?: number;
  /** Answer delay in ms: a number, `[min, max]`, or text `"5"` / `"5-40"` (uniform; default 0-10). */
  latencyMs?: number | [number, number] | string;
  /** ISO-4217 currency of the bids (`cur`, default USD). */
  currency?: string;
  /** `seatbid.seat` (default: `name`). */
  seat?: string;
  /** Name used in ids, adomain and markup (default `dsp-sim`). */
  name?: string;
  /** Seed for a deterministic PRNG; without it answers use Math.random. */
  seed?: number;
  /** Probability in [0, 1] of a deal bid on an imp with deals outside a private auction (default 0.5). */
  dealProbability?: number;
  /** Base URL put in nurl/burl/lurl/adm (default `http://<host>:<port>`, loopback for a wildcard host). */
  publicUrl?: string;
}

/** What the simulator has seen, since it started. */
export interface DspSimStats {
  /** Bid requests received (POST). */
  requests: number;
  /** Requests answered 400/413 (not JSON, not OpenRTB, too large). */
  badRequests: number;
  /** Requests answered 204. */
  noBids: number;
  /** Bids sent. */
  bids: number;
  /** Win notices (nurl) received, and the sum of their `price` values (CPM in the bid currency). */
  wins: number;
  winPriceTotal: number;
  /** Billing notices (burl) received. */
  billings: number;
  /** Loss notices (lurl) received, per `${AUCTION_LOSS}` reason code. */
  losses: number;
  lossReasons: Record<string, number>;
  /** Impression pixels (the img inside adm, the VAST Impression, the native event tracker) fired. */
  pixels: number;
  /** Bids sent per media type (`banner`, `video`, `audio`, `native`). */
  bidsByType: Record<string, number>;
  /** VAST tracking events received (`start`, `firstQuartile`, ..., `error`), per event. */
  trackingEvents: Record<string, number>;
}

/** A running simulator. */
export interface DspSim {
  /** `http://host:port/openrtb2` (any POST path works). */
  url: string;
  port: number;
  stats(): DspSimStats;
  close(): Promise<void>;
}

/** Largest bid request body read, bytes (after gunzip). */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** The 2.5 macros the exchange substitutes in the partner's notice URLs (OpenRTB 2.5 section 4.4). */
const M = {
  price: '${AUCTION_PRICE}',
  auction: '${AUCTION_ID}',
  bid: '${AUCTION_BID_ID}',
  imp: '${AUCTION_IMP_ID}',
  seat: '${AUCTION_SEAT_ID}',
  ad: '${AUCTION_AD_ID}',
  cur: '${AUCTION_CURRENCY}',
  mbr: '${AUCTION_MBR}',
  loss: '${AUCTION_LOSS}',
} as const;

const NOTICE_QUERY = `auction=${M.auction}&bid=${M.bid}&imp=${M.imp}&seat=${M.seat}&ad=${M.ad}&cur=${M.cur}`;

const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** mulberry32: a small deterministic PRNG in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Parses a latency: `"5"` -> [5, 5], `"5-40"` -> [5, 40] (ms).
 * @throws RangeError when it is not one or two non-negative numbers with min <= max.
 */
export function parseLatencyRange(value: number | [number, number] | string): [number, number] {
  let range: [number, number];
  if (typeof value === 'number') range = [value, value];
  else if (Array.isArray(value)) range = value;
  else {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?$/.exec(value);
    if (!match) throw new RangeError(`latency ${JSON.stringify(value)} is not "ms" or "min-max"`);
    range = [Number(match[1]), Number(match[2] ?? match[1])];
  }
  if (!(range[0] >= 0 && range[1] >= range[0] && Number.isFinite(range[1]))) throw new RangeError(`latency range ${range.join('-')} is invalid`);
  return range;
}

function emptyStats(): DspSimStats {
  return { requests: 0, badRequests: 0, noBids: 0, bids: 0, wins: 0, winPriceTotal: 0, billings: 0, losses: 0, lossReasons: {}, pixels: 0, bidsByType: {}, trackingEvents: {} };
}

/** The size to bid with: banner w/h, else the first absolute format, else a phone interstitial. */
function sizeOf(imp: Imp): { w: number; h: number } {
  const banner = imp.banner ?? {};
  if (typeof banner.w === 'number' && typeof banner.h === 'number' && banner.w > 0 && banner.h > 0) return { w: banner.w, h: banner.h };
  for (const format of banner.format ?? []) {
    if (typeof format.w === 'number' && typeof format.h === 'number' && format.w > 0 && format.h > 0) return { w: format.w, h: format.h };
  }
  return { w: 320, h: 480 };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_REQUEST_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, total)));
    req.on('error', reject);
  });
}

/** Starts the simulator; resolves once it listens. @throws RangeError on invalid options. */
export async function startDspSim(options: DspSimOptions = {}): Promise<DspSim> {
  const host = options.host ?? '127.0.0.1';
  const bidProbability = options.bidProbability ?? 0.8;
  const dealProbability = options.dealProbability ?? 0.5;
  const cpmMin = options.cpmMin ?? 0.5;
  const cpmMax = options.cpmMax ?? 5;
  const [latencyMin, latencyMax] = parseLatencyRange(options.latencyMs ?? '0-10');
  const currency = options.currency ?? 'USD';
  const name = options.name ?? 'dsp-sim';
  const seat = options.seat ?? name;
  if (!(bidProbability >= 0 && bidProbability <= 1)) throw new RangeError('bidProbability must be in [0, 1]');
  if (!(dealProbability >= 0 && dealProbability <= 1)) throw new RangeError('dealProbability must be in [0, 1]');
  if (!(cpmMin > 0 && cpmMax >= cpmMin && Number.isFinite(cpmMax))) throw new RangeError('need 0 < cpmMin <= cpmMax');
  if (!/^[A-Z]{3}$/.test(currency)) throw new RangeError('currency must be three upper-case letters');
  const random = options.seed === undefined ? Math.random : seededRandom(options.seed);

  const stats = emptyStats();
  let base = '';
  let bidSeq = 0;

  function priceAtLeast(floor: number): number {
    let price = cpmMin + random() * (cpmMax - cpmMin);
    if (price < floor) price = floor * (1 + random() * 0.2);
    return Math.ceil(price * 10_000) / 10_000;
  }

  function bidFor(imp: Imp): Bid | undefined {
    const types = (['banner', 'video', 'audio', 'native'] as const).filter((t) => typeof imp[t] === 'object' && imp[t] !== null);
    if (types.length === 0 || random() >= bidProbability) return undefined;
    const type = types.length === 1 ? types[0]! : types[Math.floor(random() * types.length)]!;
    const deals = (imp.pmp?.deals ?? []).filter((d) => typeof d?.id === 'string');
    const privateAuction = imp.pmp?.private_auction === 1;
    const deal = deals.length > 0 && (privateAuction || random() < dealProbability) ? deals[Math.floor(random() * deals.length)] : undefined;
    if (privateAuction && !deal) return undefined;
    const floor = Math.max(typeof imp.bidfloor === 'number' ? imp.bidfloor : 0, typeof deal?.bidfloor === 'number' ? deal.bidfloor : 0);
    const { w, h } = sizeOf(imp);
    const n = ++bidSeq;
    const bid: Bid = {
      id: `${name}-bid-${n}`,
      impid: imp.id,
      price: priceAtLeast(floor),
      adm:
        `<div class="${name}-ad" style="width:${w}px;height:${h}px;background:#eef;font:12px sans-serif">` +
        `<a href="https://${name}-advertiser.example/" target="_blank">${name} ad ${w}x${h}</a>` +
        `<img src="${base}/pixel?price=${M.price}&bid=${M.bid}" width="1" height="1" alt="" style="display:none"></div>` +
        `<!-- ${name} clearing price ${M.price} -->`,
      nurl: `${base}/win?price=${M.price}&${NOTICE_QUERY}&mbr=${M.mbr}`,
      burl: `${base}/billing?price=${M.price}&${NOTICE_QUERY}`,
      lurl: `${base}/loss?reason=${M.loss}&${NOTICE_QUERY}`,
      adomain: [`${name}-advertiser.example`],
      crid: `${name}-creative-${w}x${h}`,
      cid: `${name}-campaign-1`,
      adid: `${name}-ad-${n}`,
      w,
      h,
    };
    if (deal) bid.dealid = deal.id;
    if (type !== 'banner') {
      const ctx = { base, name, priceMacro: M.price, bidMacro: M.bid };
      delete bid.w;
      delete bid.h;
      if (type === 'native') bid.adm = nativeFor(imp, ctx, n);
      else {
        const dur = durationFor(imp[type]);
        bid.adm = vastFor(type, dur, ctx, n);
        bid.dur = dur;
        if (type === 'video') {
          bid.w = 640;
          bid.h = 360;
        }
      }
      bid.crid = `${name}-creative-${type}`;
    }
    bid.mtype = { banner: 1, video: 2, audio: 3, native: 4 }[type];
    stats.bidsByType[type] = (stats.bidsByType[type] ?? 0) + 1;
    return bid;
  }

  async function answerBidRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests++;
    let raw = await readBody(req);
    if (raw && req.headers['content-encoding'] === 'gzip') raw = await gunzipAsync(raw, { maxOutputLength: MAX_REQUEST_BYTES }).catch(() => undefined);
    if (!raw) {
      stats.badRequests++;
      res.writeHead(413).end();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const request = parsed as BidRequest;
    if (typeof parsed !== 'object' || parsed === null || !Array.isArray(request.imp)) {
      stats.badRequests++;
      res.writeHead(400, { 'content-type': 'text/plain' }).end('not an OpenRTB 2.5 bid request');
      return;
    }
    const delayMs = latencyMin + random() * (latencyMax - latencyMin);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));

    const bids: Bid[] = [];
    for (const imp of request.imp) {
      const bid = typeof imp === 'object' && imp !== null && typeof imp.id === 'string' ? bidFor(imp) : undefined;
      if (bid) bids.push(bid);
    }
    if (res.destroyed) return;
    if (bids.length === 0) {
      stats.noBids++;
      res.writeHead(204, { 'x-openrtb-version': '2.5' }).end();
      return;
    }
    stats.bids += bids.length;
    const response: BidResponse = { id: String(request.id), bidid: `${name}-resp-${bidSeq}`, cur: currency, seatbid: [{ seat, bid: bids }] };
    let payload: Buffer = Buffer.from(JSON.stringify(response));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-openrtb-version': '2.5' };
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      payload = await gzipAsync(payload);
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = String(payload.length);
    res.writeHead(200, headers).end(payload);
  }

  function answerNotice(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    switch (url.pathname) {
      case '/stats':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
        return;
      case '/win': {
        stats.wins++;
        const price = Number(url.searchParams.get('price'));
        if (Number.isFinite(price)) stats.winPriceTotal += price;
        break;
      }
      case '/billing':
        stats.billings++;
        break;
      case '/loss': {
        stats.losses++;
        const reason = url.searchParams.get('reason') ?? 'unknown';
        stats.lossReasons[reason] = (stats.lossReasons[reason] ?? 0) + 1;
        break;
      }
      case '/pixel':
        stats.pixels++;
        res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' }).end(PIXEL_GIF);
        return;
      case '/track': {
        const event = url.searchParams.get('event') ?? 'unknown';
        stats.trackingEvents[event] = (stats.trackingEvents[event] ?? 0) + 1;
        res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' }).end(PIXEL_GIF);
        return;
      }
      case '/healthz':
        break;
      default:
        if (url.pathname.startsWith('/media/')) {
          // Stands in for creatives' media (not playable): the markup's URLs resolve on loopback.
          const type = url.pathname.endsWith('.mp4') ? 'video/mp4' : url.pathname.endsWith('.m4a') ? 'audio/mp4' : 'image/gif';
          res.writeHead(200, { 'content-type': type, 'cache-control': 'max-age=3600' }).end(PIXEL_GIF);
          return;
        }
        res.writeHead(404).end();
        return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }

  const server = createServer((req, res) => {
    const done = req.method === 'POST' ? answerBidRequest(req, res) : Promise.resolve(answerNotice(req, res));
    done.catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  base = (options.publicUrl ?? `http://${urlHost}:${port}`).replace(/\/+$/, '');

  return {
    url: `${base}/openrtb2`,
    port,
    stats: () => ({ ...stats, lossReasons: { ...stats.lossReasons } }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError('expected a positive number');
  return n;
}

function probability(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number between 0 and 1');
  return n;
}

function latency(value: string): string {
  try {
    parseLatencyRange(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return value;
}

/**
 * Adds `dsp-sim` to `program` (commander 14): starts the simulator, prints its URL on stdout
 * and runs until SIGINT/SIGTERM.
 */
export function registerDspSimCommand(program: Command): Command {
  return program
    .command('dsp-sim')
    .description('run a simulated OpenRTB 2.5 DSP (for the demo, tests and benchmarks)')
    .option('--port <port>', 'TCP port (0 = ephemeral)', integer, 0)
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--bid-probability <p>', 'probability of bidding on each banner imp, 0..1', probability, 0.8)
    .option('--cpm-min <cpm>', 'lowest bid CPM', positiveNumber, 0.5)
    .option('--cpm-max <cpm>', 'highest bid CPM', positiveNumber, 5)
    .option('--latency-ms <ms>', 'answer delay in ms: "5" or a uniform range "5-40"', latency, '0-10')
    .option('--currency <code>', 'bid currency (ISO-4217)', 'USD')
    .option('--seat <seat>', 'seatbid.seat (default: the name)')
    .option('--name <name>', 'name used in ids, adomain and markup', 'dsp-sim')
    .option('--seed <n>', 'seed for deterministic answers', integer)
    .action(async (opts: { port: number; host: string; bidProbability: number; cpmMin: number; cpmMax: number; latencyMs: string; currency: string; seat?: string; name: string; seed?: number }) => {
      const sim = await startDspSim(opts);
      process.stdout.write(`${sim.url}\n`);
      const stop = () => {
        void sim.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
