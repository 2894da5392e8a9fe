/**
 * `POST /v1/openrtb/2.5/bidrequest` (DESIGN section 2): publisher Bearer auth, JSON or
 * text/plain body (gzip allowed, 64 KiB decompressed cap), validation with problem+json and
 * `nbr: 2`, the tmax deadline measured from arrival, shedding under overload, 204 for no bid,
 * gzip answers on `Accept-Encoding: gzip`.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey } from '../../admin/api-keys.js';
import type { Exchange } from '../../auction/exchange.js';
import type { Clock } from '../../domain/clock.js';
import { AdxError } from '../../domain/errors.js';
import { NoBidReason, type BidRequest } from '../../domain/openrtb.js';
import type { Metrics } from '../../observability/metrics.js';
import type { PublisherRecord } from '../../storage/ports.js';
import { validateBidRequest } from '../../validation/bid-request.js';
import { installCors } from '../cors.js';
import { sendProblem } from '../problem.js';
import { authorizeBrowser, claimedPublisherId } from './browser-auth.js';
import type { RateLimiter } from './rate-limiter.js';
import type { LiveStats } from '../../reporting/live-stats.js';
import type { SeriesSink } from '../../reporting/series-sink.js';
import type { ConfigCache } from './config-cache.js';
import type { LoadShedder } from './overload.js';
import { bodyEncoding, isAcceptedContentType, parseJsonBody, readBody } from './read-body.js';

const gzip = promisify(gzipCallback);

/** Path of the bid endpoint. */
export const BID_PATH = '/v1/openrtb/2.5/bidrequest';

/** Options of the bid route plugin. */
export interface BidRouteOptions {
  exchange: Exchange;
  cache: ConfigCache;
  shedder: LoadShedder;
  metrics: Metrics;
  clock: Clock;
  bodyLimitBytes: number;
  defaultTmaxMs: number;
  maxTmaxMs: number;
  /** Browser supply rate limits (DESIGN section 2): per publisher and per client IP. */
  browserPublisherLimiter: RateLimiter;
  browserIpLimiter: RateLimiter;
  /** Per-API-key limit for Bearer clients (a limiter with 0 per second lets everything through). */
  keyLimiter: RateLimiter;
  /** False while the store cannot take writes: bid requests then answer 503 before any partner is called. */
  storeHealthy: () => boolean;
  /** Live figures for `GET /v1/stats`. */
  stats: Pick<LiveStats, 'recordRequest' | 'recordPartnerCall'>;
  /** The stored series' exchange latency histogram, per publisher (DESIGN section 7); none when absent. */
  series?: Pick<SeriesSink, 'observeLatency'>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** `clock.monotonicMs()` when the bid request arrived (the tmax origin). */
    adxArrivalMs?: number;
    adxPublisher?: PublisherRecord;
    adxShed?: boolean;
    /** The request's effective tmax, ms, once its body is validated (for the late-answer count). */
    adxTmaxMs?: number;
    /** No Authorization header: a browser (Prebid.js) request, authorized by its body and Origin. */
    adxBrowser?: boolean;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Registers the bid endpoint. Call inside an encapsulated plugin: it replaces the content-type parsers. */
export async function bidRoutes(app: FastifyInstance, options: BidRouteOptions): Promise<void> {
  const { exchange, cache, shedder, metrics, clock } = options;

  // CORS first, so every answer below (errors included) carries it; OPTIONS preflights.
  installCors(app, [BID_PATH], 'POST, OPTIONS');

  // Every content type reaches our parser, which decides (415 for anything but JSON/text).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request: FastifyRequest, payload, done) => {
    if (request.adxShed) {
      payload.resume();
      done(null, undefined);
      return;
    }
    if (!isAcceptedContentType(request.headers['content-type'])) {
      payload.resume();
      done(new AdxError('unsupported_media_type', `Content-Type ${JSON.stringify(request.headers['content-type'])} is not supported; use application/json or text/plain`), undefined);
      return;
    }
    let encoding: 'identity' | 'gzip';
    try {
      encoding = bodyEncoding(request.headers['content-encoding'], (request.query as Record<string, unknown>).gzip);
    } catch (error) {
      payload.resume();
      done(error as Error, undefined);
      return;
    }
    readBody(payload, encoding, options.bodyLimitBytes).then(
      (body) => {
        try {
          done(null, parseJsonBody(body));
        } catch (error) {
          done(error as Error, undefined);
        }
      },
      (error: Error) => done(error, undefined),
    );
  });

  // Bid endpoint errors carry the OpenRTB no-bid reason 2 (invalid request) on 400.
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    metrics.requests.inc({ type: 'bid', status: 'badinput' });
    if (error instanceof AdxError) {
      return sendProblem(reply, error.code, error.message, {
        errors: error.errors,
        headers: error.headers,
        nbr: error.code === 'invalid_request' ? NoBidReason.invalidRequest : undefined,
      });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) return sendProblem(reply, 'payload_too_large', 'the request body is larger than the limit');
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415) {
      return sendProblem(reply, 'unsupported_media_type', 'Content-Type is malformed or not supported; use application/json or text/plain');
    }
    if (error.statusCode === 400 || error instanceof SyntaxError) {
      return sendProblem(reply, 'invalid_request', 'the body is not valid JSON', { errors: [{ field: 'body', message: 'is not valid JSON' }], nbr: NoBidReason.invalidRequest });
    }
    request.log.error({ err: error }, 'bid request failed');
    return sendProblem(reply, 'internal', 'an internal error occurred');
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    request.adxArrivalMs = clock.monotonicMs();
    const shed = shedder.shouldShed();
    if (shed) {
      request.adxShed = true;
      metrics.shed.inc({ reason: shed });
      return reply.code(204).header('x-openrtb-version', '2.5').send();
    }
    if (request.headers.authorization === undefined) {
      // Browser supply: the publisher is named in the body; the client IP is limited before parsing.
      request.adxBrowser = true;
      const wait = options.browserIpLimiter.take(request.socket.remoteAddress ?? 'unknown');
      if (wait > 0) throw new AdxError('rate_limited', 'too many browser requests from this address', { headers: { 'retry-after': String(wait) } });
      return;
    }
    const key = bearerToken(request.headers.authorization);
    if (!key) throw new AdxError('unauthorized', 'send the publisher API key as Authorization: Bearer <key>');
    let publisher: PublisherRecord | undefined;
    const keyHash = hashApiKey(key);
    try {
      publisher = await cache.publisherByKeyHash(keyHash);
    } catch {
      throw new AdxError('not_ready', 'the store is unreachable');
    }
    if (!publisher) throw new AdxError('unauthorized', 'unknown API key');
    const wait = options.keyLimiter.take(keyHash);
    if (wait > 0) throw new AdxError('rate_limited', 'too many bid requests for this API key', { headers: { 'retry-after': String(wait) } });
    request.adxPublisher = publisher;
  });

  // Answers finished after tmax, by the exchange's own clock from arrival (issue 15: the bench and
  // the cold-start test count lateness here, not at a client whose queueing adds to it).
  // The same figure feeds the shedder's adaptive limit (admitted requests only: shed ones have no tmax).
  app.addHook('onResponse', async (request) => {
    if (request.adxTmaxMs === undefined || request.adxArrivalMs === undefined) return;
    const nowMs = clock.monotonicMs();
    const latencyMs = nowMs - request.adxArrivalMs;
    if (latencyMs > request.adxTmaxMs) metrics.lateAnswers.inc();
    shedder.answered(latencyMs, request.adxTmaxMs, nowMs);
  });

  app.post(BID_PATH, { config: { adxBid: true } }, async (request, reply) => {
    const arrival = request.adxArrivalMs!;
    const result = validateBidRequest(request.body);
    if (!result.ok) {
      throw new AdxError('invalid_request', result.errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors: result.errors });
    }
    const bidRequest: BidRequest = result.request;
    if (request.adxBrowser) {
      const claimed = claimedPublisherId(bidRequest);
      let publisher: PublisherRecord | undefined;
      try {
        publisher = claimed ? await cache.publisherById(claimed) : undefined;
      } catch {
        throw new AdxError('not_ready', 'the store is unreachable');
      }
      request.adxPublisher = authorizeBrowser(publisher, claimed, request.headers.origin);
      const wait = options.browserPublisherLimiter.take(request.adxPublisher.id);
      if (wait > 0) throw new AdxError('rate_limited', 'too many browser requests for this publisher', { headers: { 'retry-after': String(wait) } });
    }
    if (!options.storeHealthy()) {
      metrics.requests.inc({ type: 'bid', status: 'error' });
      throw new AdxError('not_ready', 'the store is unreachable');
    }
    const tmaxMs = Math.min(typeof bidRequest.tmax === 'number' ? bidRequest.tmax : options.defaultTmaxMs, options.maxTmaxMs);
    const deadline = arrival + tmaxMs;
    request.adxTmaxMs = tmaxMs;

    shedder.begin();
    metrics.inFlight.inc();
    let outcome;
    try {
      outcome = await exchange.handle(bidRequest, request.adxPublisher!, deadline);
    } finally {
      shedder.end();
      metrics.inFlight.dec();
    }
    const latencyMs = clock.monotonicMs() - arrival;
    metrics.requestTime.observe({ type: 'bid' }, latencyMs / 1000);
    let bids = 0;
    const filled = new Set<string>();
    for (const seat of outcome.response?.seatbid ?? []) {
      for (const bid of seat.bid) {
        bids++;
        filled.add(bid.impid);
      }
    }
    options.stats.recordRequest(latencyMs, { imps: bidRequest.imp.length, impsFilled: filled.size, bids });
    options.series?.observeLatency('exchange', request.adxPublisher!.id, latencyMs);
    for (const call of outcome.calls) options.stats.recordPartnerCall(call.partnerId, call.outcome);
    reply.header('x-openrtb-version', '2.5');
    if (outcome.commitProblem === 'failed') {
      metrics.requests.inc({ type: 'bid', status: 'error' });
      return sendProblem(reply, 'not_ready', 'the store is unreachable');
    }
    if (!outcome.response) {
      metrics.requests.inc({ type: 'bid', status: 'nobid' });
      return reply.code(204).send();
    }
    metrics.requests.inc({ type: 'bid', status: 'ok' });
    return sendJson(request, reply, outcome.response);
  });
}

async function sendJson(request: FastifyRequest, reply: FastifyReply, value: unknown): Promise<FastifyReply> {
  const json = JSON.stringify(value);
  reply.type('application/json');
  const accept = request.headers['accept-encoding'];
  if (typeof accept === 'string' && /\bgzip\b/i.test(accept)) {
    const body = await gzip(json);
    return reply.header('content-encoding', 'gzip').header('vary', 'Accept-Encoding').send(body);
  }
  return reply.send(json);
}
