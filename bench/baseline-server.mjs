/**
 * The benchmark's baseline: a bare `node:http` bid server doing only what any exchange must do,
 * so the harness can report adx's throughput as a ratio of it (issue 6).
 *
 * Per request: read the body (inflate it asynchronously when `content-encoding: gzip`),
 * `JSON.parse` it, build one OpenRTB 2.5 request per partner from it (new `id`, `tmax` = remaining
 * budget, the exchange's schain node appended, as DESIGN section 5 asks of adx), POST it exactly as
 * adx calls a partner whose `gzip` setting is off (the bench seeds its partners so): the same
 * headers (`content-type: application/json`, `x-openrtb-version: 2.5`, no `accept-encoding`, so the
 * partner answers plain JSON), an undici `Agent` with adx's pool settings (64 connections per
 * origin, pipelining 1, keep-alive 30 s / max 120 s) and a timer racing the budget; `JSON.parse`
 * each answer (inflated asynchronously should a partner gzip anyway), keep the highest bid per imp,
 * and answer a JSON BidResponse (gzipped asynchronously when the client accepts it) or 204. No
 * synchronous zlib anywhere, as in adx. No validation, no auction rules, no currency, no
 * storage, no metrics.
 *
 * Loss notices, as adx makes them (scenario b): after answering, each losing bid's `lurl` gets its
 * OpenRTB 2.5 section 4.4 macros substituted (`${AUCTION_LOSS}` = 102, lost to a higher bid) and
 * is fetched with a GET through a notice pool of its own, as adx's partner notifier does (64
 * connections per origin, a timeout signal per call, the body read and dropped); fire and forget,
 * no retries.
 *
 * With `--webhook-url` and `--webhook-secret` (scenario d), it also makes adx's webhook I/O: per
 * imp won, after answering, one `auction.complete` POST with adx's payload fields, signed as
 * Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature`, HMAC-SHA256),
 * through an undici `Agent` with adx's webhook pool (32 connections per origin, the default
 * `webhooks.perEndpointConcurrency`). Fire and forget, held in memory: no outbox, no retries, no
 * attempt records, which is what adx's durability adds and the ratio then measures.
 *
 * Run as a process: `node bench/baseline-server.mjs --partners <url,url> [--port 0]`; it prints
 * `baseline listening on http://127.0.0.1:<port>` and stops on SIGTERM/SIGINT. Importing this
 * module does nothing.
 */
import { createServer } from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Agent } from 'undici';

const gunzip = promisify(gunzipCallback);
const gzip = promisify(gzipCallback);

/** The headers adx's OpenRTB 2.5 adapter sends a partner whose `gzip` setting is off. */
const PARTNER_HEADERS = Object.freeze({ 'content-type': 'application/json', 'x-openrtb-version': '2.5' });

/** Budget kept back from partners, ms (adx's default `auction.tmaxMarginMs`). */
const TMAX_MARGIN_MS = 20;
/** `tmax` when the request has none, ms (adx's default). */
const DEFAULT_TMAX_MS = 100;

/**
 * @typedef {object} BaselineOptions
 * @property {string[]} partnerUrls OpenRTB endpoints of the demand partners (http URLs).
 * @property {number} [port] TCP port on 127.0.0.1; 0 (default) = ephemeral.
 * @property {number} [connectionsPerPartner] keep-alive connections per partner (default 64, as adx).
 * @property {{ url: string, secret: string }} [webhook] where to POST `auction.complete` (the full
 *   delivery URL) and the endpoint's `whsec_` secret; absent = no webhooks.
 */

/** adx's default `notices.partnerCallTimeoutMs`: one loss notice call, ms. */
const NOTICE_TIMEOUT_MS = 2000;

/** `${NAME}` macros (OpenRTB 2.5 section 4.4) as dsp-sim and most DSPs write them. */
const MACRO = /\$\{(AUCTION_[A-Z_]+)\}/g;

/**
 * A fire-and-forget caller of partners' loss notice URLs, with adx's notifier pool settings.
 * @returns {{ fire: (url: string) => void, close: () => Promise<void> }}
 */
function createLossNotifier() {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64, connect: { timeout: NOTICE_TIMEOUT_MS }, headersTimeout: NOTICE_TIMEOUT_MS, bodyTimeout: NOTICE_TIMEOUT_MS });
  return {
    fire(url) {
      agent
        .request({ origin: new URL(url).origin, path: url.slice(url.indexOf('/', url.indexOf('//') + 2)), method: 'GET', signal: AbortSignal.timeout(NOTICE_TIMEOUT_MS) })
        .then((res) => res.body.dump({ limit: 64 * 1024 }))
        .catch(() => undefined);
    },
    close: () => agent.close(),
  };
}

/**
 * A loss URL with its macros filled in for a bid that lost to a higher one.
 * @param {string} lurl
 * @param {{ id: string, seat: string, bid: any }} loser partner request id, seat and the bid
 * @returns {string}
 */
function lossUrl(lurl, loser) {
  /** @type {Record<string, string>} */
  const values = { AUCTION_ID: loser.id, AUCTION_BID_ID: String(loser.bid.id ?? ''), AUCTION_IMP_ID: String(loser.bid.impid ?? ''), AUCTION_SEAT_ID: loser.seat, AUCTION_AD_ID: String(loser.bid.adid ?? ''), AUCTION_CURRENCY: 'USD', AUCTION_LOSS: '102' };
  return lurl.replace(MACRO, (whole, name) => (name in values ? encodeURIComponent(values[name]) : whole));
}

/** adx's default `webhooks.perEndpointConcurrency`: connections to a webhook endpoint. */
const WEBHOOK_CONNECTIONS = 32;

/**
 * A Standard Webhooks v1 sender for one endpoint (signature = base64 HMAC-SHA256 over
 * `<id>.<timestamp>.<body>` with the secret's decoded bytes), as adx's `signer.ts`.
 * @param {{ url: string, secret: string }} webhook
 */
function createWebhookSender(webhook) {
  const url = new URL(webhook.url);
  const key = Buffer.from(webhook.secret.replace(/^whsec_/, ''), 'base64');
  const agent = new Agent({ connections: WEBHOOK_CONNECTIONS, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
  const prefix = `msg_base_${randomBytes(6).toString('hex')}_`;
  let seq = 0;
  let failed = 0;
  return {
    /** POSTs one event body; never rejects (failures are counted). @param {string} body */
    send(body) {
      const id = `${prefix}${++seq}`;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      agent
        .request({
          origin: url.origin,
          method: 'POST',
          path: `${url.pathname}${url.search}`,
          headers: { 'content-type': 'application/json', 'user-agent': 'adx-baseline/1', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` },
          body,
          headersTimeout: 15_000,
          bodyTimeout: 15_000,
        })
        .then((res) => res.body.dump())
        .catch(() => {
          failed += 1;
        });
    },
    failed: () => failed,
    close: () => agent.close(),
  };
}

/**
 * @typedef {object} BaselineServer
 * @property {string} url `http://127.0.0.1:<port>`
 * @property {() => Promise<void>} close closes the server and the partner pools.
 */

/**
 * Reads a request body into one Buffer.
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Buffer>}
 */
function readBody(req) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Starts the baseline server on 127.0.0.1.
 * @param {BaselineOptions} options
 * @returns {Promise<BaselineServer>}
 */
export async function startBaselineServer(options) {
  // adx's partner client (src/demand/partner-http.ts): one Agent, a Pool per origin.
  const agent = new Agent({ connections: options.connectionsPerPartner ?? 64, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
  const partners = options.partnerUrls.map((endpoint) => {
    const url = new URL(endpoint);
    return { origin: url.origin, path: `${url.pathname}${url.search}` };
  });
  let seq = 0;
  const webhooks = options.webhook ? createWebhookSender(options.webhook) : undefined;
  const losses = createLossNotifier();

  /**
   * One partner call; resolves with the parsed BidResponse or undefined (no bid, error, late).
   * @param {{ origin: string, path: string }} partner
   * @param {string} body
   * @param {number} budgetMs
   * @returns {Promise<any>}
   */
  async function callPartner(partner, body, budgetMs) {
    const controller = new AbortController();
    // As adx: a timer races the budget, since undici does not time out a request queued for a connection.
    const timer = setTimeout(() => controller.abort(), budgetMs);
    try {
      const res = await agent.request({
        origin: partner.origin,
        method: 'POST',
        path: partner.path,
        headers: { ...PARTNER_HEADERS },
        body,
        signal: controller.signal,
        headersTimeout: budgetMs,
        bodyTimeout: budgetMs,
      });
      const raw = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode !== 200 || raw.length === 0) return undefined;
      const text = (res.headers['content-encoding'] === 'gzip' ? await gunzip(raw) : raw).toString('utf8');
      return JSON.parse(text);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  async function handle(req, res) {
    const arrivedAt = performance.now();
    let raw = await readBody(req);
    if (req.headers['content-encoding'] === 'gzip') raw = await gunzip(raw);
    /** @type {any} */
    let request;
    try {
      request = JSON.parse(raw.toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const tmaxMs = typeof request.tmax === 'number' ? request.tmax : DEFAULT_TMAX_MS;
    const budgetMs = Math.max(1, Math.floor(tmaxMs - TMAX_MARGIN_MS - (performance.now() - arrivedAt)));
    const upstreamSchain = request.source?.ext?.schain;
    const n = ++seq;
    const partnerRequestId = `${request.id}-${n}`;
    const outgoing = JSON.stringify({
      ...request,
      id: partnerRequestId,
      tmax: budgetMs,
      source: {
        ...request.source,
        ext: {
          ...request.source?.ext,
          schain: {
            complete: upstreamSchain?.complete ?? 1,
            ver: '1.0',
            nodes: [...(upstreamSchain?.nodes ?? []), { asi: 'baseline.example', sid: 'bench', rid: request.id, hp: 1 }],
          },
        },
      },
    });
    const answers = await Promise.all(partners.map((partner) => callPartner(partner, outgoing, budgetMs)));

    /** @type {Map<string, { seat: string, bid: any }>} */
    const best = new Map();
    /** @type {Array<{ seat: string, bid: any }>} */
    const lost = [];
    for (const answer of answers) {
      for (const seatbid of answer?.seatbid ?? []) {
        for (const bid of seatbid.bid ?? []) {
          const current = best.get(bid.impid);
          if (!current || bid.price > current.bid.price) {
            if (current) lost.push(current);
            best.set(bid.impid, { seat: seatbid.seat ?? '', bid });
          } else lost.push({ seat: seatbid.seat ?? '', bid });
        }
      }
    }
    const fireLosses = () => {
      for (const loser of lost) if (typeof loser.bid.lurl === 'string' && loser.bid.lurl !== '') losses.fire(lossUrl(loser.bid.lurl, { id: partnerRequestId, ...loser }));
    };
    if (best.size === 0) {
      res.writeHead(204).end();
      return;
    }
    /** @type {Map<string, any[]>} */
    const bySeat = new Map();
    for (const { seat, bid } of best.values()) {
      const list = bySeat.get(seat) ?? [];
      list.push({ id: `b-${n}-${bid.impid}`, impid: bid.impid, price: bid.price, adm: bid.adm, nurl: bid.nurl, burl: bid.burl, adomain: bid.adomain, crid: bid.crid, cid: bid.cid, w: bid.w, h: bid.h });
      bySeat.set(seat, list);
    }
    const response = { id: request.id, bidid: `r-${n}`, cur: 'USD', seatbid: [...bySeat].map(([seat, bid]) => ({ seat, bid })) };
    let payload = Buffer.from(JSON.stringify(response));
    /** @type {Record<string, string>} */
    const headers = { 'content-type': 'application/json', 'x-openrtb-version': '2.5' };
    if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      payload = await gzip(payload);
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = String(payload.length);
    res.writeHead(200, headers).end(payload);
    if (lost.length > 0) setImmediate(fireLosses);
    if (webhooks) {
      const timestamp = new Date().toISOString();
      for (const { seat, bid } of best.values()) {
        webhooks.send(
          JSON.stringify({
            event: 'auction.complete',
            auction_id: `auc-${n}-${bid.impid}`,
            winning_bid: bid.price,
            currency: 'USD',
            timestamp,
            request_id: request.id,
            imp_id: bid.impid,
            bid_id: `b-${n}-${bid.impid}`,
            publisher_id: 'bench',
            seat,
            clearing_price: bid.price,
          }),
        );
      }
    }
  }

  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await agent.close();
      await losses.close();
      await webhooks?.close();
    },
  };
}

/** CLI entry: `--partners url,url [--port N] [--webhook-url <url> --webhook-secret whsec_...]`. */
async function main() {
  const { values } = parseArgs({
    options: { partners: { type: 'string' }, port: { type: 'string', default: '0' }, 'webhook-url': { type: 'string' }, 'webhook-secret': { type: 'string' } },
  });
  const partnerUrls = (values.partners ?? '').split(',').filter((s) => s !== '');
  if (partnerUrls.length === 0) {
    process.stderr.write('usage: node bench/baseline-server.mjs --partners <url,url> [--port N] [--webhook-url <url> --webhook-secret whsec_...]\n');
    process.exit(2);
  }
  const webhookUrl = values['webhook-url'];
  const webhookSecret = values['webhook-secret'];
  if ((webhookUrl === undefined) !== (webhookSecret === undefined)) {
    process.stderr.write('--webhook-url and --webhook-secret go together\n');
    process.exit(2);
  }
  const webhook = webhookUrl !== undefined && webhookSecret !== undefined ? { url: webhookUrl, secret: webhookSecret } : undefined;
  const server = await startBaselineServer({ partnerUrls, port: Number(values.port), webhook });
  process.stdout.write(`baseline listening on ${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
