/**
 * Warm-up before readiness (issue 15). A fresh Node process runs its first bid requests several
 * times slower than warm ones: every function on the bid path is compiled on its first call and
 * optimised only after many, undici opens its first sockets, the config cache and SQLite
 * statements start empty. Live traffic sent the moment the exchange listens then misses tmax or
 * gets shed. So `/readyz` answers 503 until `warmUpBidPath` has driven synthetic auctions through
 * the real code path: validation (`validateBidRequest`), the exchange (`Exchange.handle`: partner
 * dispatch through the OpenRTB 2.5 adapter and undici, the auction, notice-token signing, macro
 * substitution, the response) and the answer's serialization (JSON, gzip).
 *
 * No partner is called: the synthetic auctions go to a bidder on 127.0.0.1 that this module
 * starts and stops (one bid per imp, answered at once). The caller's `makeExchange` wires an
 * exchange whose commit, counters and metrics go nowhere, so warm-up writes nothing to the store
 * and counts nothing in reports or `/metrics`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Exchange } from './auction/exchange.js';
import type { Clock } from './domain/clock.js';
import type { DemandPartnerRecord, PublisherRecord } from './storage/ports.js';
import { validateBidRequest } from './validation/bid-request.js';

const gzip = promisify(gzipCallback);

/** What warm-up needs (STYLE 7). */
export interface WarmUpDeps {
  /**
   * Builds an exchange over the real bid-path code whose only partner is `partner`, with side
   * effects disconnected (commit resolves at once, counters and metrics are discarded).
   * `close()` releases its partner connections.
   */
  makeExchange(partner: DemandPartnerRecord): { exchange: Exchange; close(): Promise<void> };
  /** Fills caches the bid path reads (enabled partners, ...); errors are logged, not thrown. */
  primeCaches(): Promise<unknown>;
  clock: Clock;
  /** Synthetic auctions to run (default 300: enough for V8 to optimise the hot functions). */
  rounds?: number;
  /** Auctions in flight at once (default 8). */
  concurrency?: number;
}

/** What warm-up did. */
export interface WarmUpReport {
  auctions: number;
  /** How many of them ended with a bid in the response (all of them, unless something is broken). */
  withBid: number;
  durationMs: number;
}

/** Publisher of the synthetic auctions (never stored). */
const WARM_PUBLISHER: PublisherRecord = {
  id: 'warm-up',
  name: 'warm-up',
  domain: null,
  domains: [],
  browserAccess: false,
  auctionType: 1,
  reservePriceMicros: 0,
  sellerType: 'PUBLISHER',
  isConfidential: false,
  createdAtMs: 0,
  updatedAtMs: 0,
};

/** The synthetic bid requests: one imp and two imps, first and second price. */
function sampleRequest(n: number): unknown {
  const imp = (id: string, w: number, h: number) => ({ id, banner: { w, h, format: [{ w, h }] }, bidfloor: 0.1, bidfloorcur: 'USD' });
  return {
    id: `warm-${n}`,
    imp: n % 2 === 0 ? [imp('1', 300, 250)] : [imp('1', 300, 250), imp('2', 728, 90)],
    site: { id: 'warm', domain: 'warm.example', page: 'https://warm.example/', publisher: { id: 'warm-up' } },
    device: { ua: 'warm-up', ip: '192.0.2.1', devicetype: 2 },
    user: { id: 'warm-user' },
    at: n % 3 === 0 ? 2 : 1,
    cur: ['USD'],
    tmax: 1000,
  };
}

/** A loopback OpenRTB 2.5 bidder: one 1.00 USD bid per banner imp, at once. */
async function startLoopbackBidder(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let request: { id?: string; imp?: Array<{ id: string; banner?: { w?: number; h?: number } }> };
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const bids = (request.imp ?? []).map((imp, i) => ({
        id: `warm-bid-${i}`,
        impid: imp.id,
        price: 1,
        adm: '<div>warm-up</div>',
        adomain: ['warm.example'],
        crid: 'warm-creative',
        w: imp.banner?.w,
        h: imp.banner?.h,
      }));
      const body = JSON.stringify({ id: request.id, cur: 'USD', seatbid: [{ seat: 'warm-up', bid: bids }] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/openrtb2`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Runs the warm-up: primes caches, then `rounds` synthetic auctions `concurrency` at a time.
 * Resolves with what it did; rejects only for programming errors in the bid path (which the
 * caller logs; readiness then still turns green, since serving cold beats not serving).
 */
export async function warmUpBidPath(deps: WarmUpDeps): Promise<WarmUpReport> {
  const started = deps.clock.monotonicMs();
  await deps.primeCaches();
  const bidder = await startLoopbackBidder();
  const partner: DemandPartnerRecord = {
    id: 'warm-up',
    name: 'warm-up',
    endpoint: bidder.url,
    adapter: 'openrtb25',
    timeoutMs: 1000,
    gzip: false,
    qpsLimit: null,
    currency: 'USD',
    enabled: true,
    openrtbVersion: '2.5',
    gvlVendorId: null,
    mediaTypes: ['banner'],
    createdAtMs: 0,
    updatedAtMs: 0,
  };
  const { exchange, close } = deps.makeExchange(partner);
  const rounds = deps.rounds ?? 300;
  let next = 0;
  let withBid = 0;
  const worker = async () => {
    while (next < rounds) {
      const n = next++;
      const parsed = validateBidRequest(JSON.parse(JSON.stringify(sampleRequest(n))));
      if (!parsed.ok) throw new Error(`warm-up request is invalid: ${parsed.errors.map((e) => e.field).join(', ')}`);
      const outcome = await exchange.handle(parsed.request, WARM_PUBLISHER, deps.clock.monotonicMs() + 1000);
      if (outcome.response) {
        withBid++;
        const json = JSON.stringify(outcome.response);
        if (n % 4 === 0) await gzip(json);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: deps.concurrency ?? 8 }, worker));
  } finally {
    await close();
    await bidder.close();
  }
  return { auctions: rounds, withBid, durationMs: deps.clock.monotonicMs() - started };
}
