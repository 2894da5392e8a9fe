/**
 * The chaos run's demand partner: a small node:http server on 127.0.0.1 run as its own process
 * (`node chaos/dsp.mjs --name good --mode bid`), so a 5 MB answer or a hung socket costs the
 * partner's CPU, not the load generator's. It prints `chaos-dsp <name> listening on <url>` once
 * it listens and stops on SIGTERM/SIGINT.
 *
 * - `POST /control` `{"mode": "<mode>"}`: switches the behaviour (204; 400 for an unknown mode).
 * - `POST` any other path: an OpenRTB 2.5 bid request (section 3.2.1), answered per the mode:
 *   - `bid`: one valid 300x250 bid per imp at `--price` CPM (USD). Each bid id is unique
 *     (`<name>-<n>`) and is written into `adm` as `<!--pbid:<id>-->` and into the partner `nurl`
 *     (`/win?pbid=<id>&price=${AUCTION_PRICE}`), so the harness can tell which partner bid a
 *     publisher-side win notice reached;
 *   - `nobid`: 204 (OpenRTB 2.5 section 7.1);
 *   - `hang`: reads the request and never answers (the socket stays open until the exchange
 *     gives up on it);
 *   - `late`: a valid bid at 2x `--price`, sent `--late-ms` after the request (default 400 ms, after
 *     any tmax the harness uses);
 *   - `huge`: a 5 MB JSON answer with its `content-length` (above `demand.maxResponseBytes`);
 *   - `junk`: `200 application/json` whose body is cut JSON;
 *   - `cut`: announces the `content-length` of a valid answer, sends half of it and destroys the
 *     socket;
 *   - `badbids`: three bids at 2x `--price`, each invalid in one way: an unknown `impid`, a
 *     728x90 size on a 300x250 imp, and the price `"NaN"` (OpenRTB 2.5 loss reasons 3, 203, 9).
 * - `GET /win?pbid=<id>`: counts a partner win notice for that bid (200).
 * - `GET /stats`: `{requests, bids, winHits: {<pbid>: count}, mode}` as JSON.
 *
 * Loopback only; no exchange logic.
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** The behaviours `POST /control` accepts. */
export const MODES = ['bid', 'nobid', 'hang', 'late', 'huge', 'junk', 'cut', 'badbids'];

/** Size of the `huge` answer, bytes. */
const HUGE_BYTES = 5 * 1024 * 1024;
/** Largest request body read, bytes. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * Reads a request body (at most MAX_REQUEST_BYTES; more resolves undefined).
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Buffer | undefined>}
 */
function readBody(req) {
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let total = 0;
    req.on('data', (/** @type {Buffer} */ chunk) => {
      total += chunk.length;
      if (total <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(total > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks)));
    req.on('error', () => resolve(undefined));
  });
}

/** @param {Buffer | undefined} raw @returns {any} */
function parseJson(raw) {
  try {
    return raw ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts the partner.
 * @param {{ name: string, mode: string, price: number, lateMs: number, port: number }} o
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startChaosDsp(o) {
  let mode = o.mode;
  let seq = 0;
  let base = '';
  /** @type {{ requests: number, bids: number, winHits: Record<string, number> }} */
  const stats = { requests: 0, bids: 0, winHits: {} };
  const hugeBody = Buffer.from(`{"id":"huge","seatbid":[{"bid":[{"id":"h","impid":"1","price":9,"w":300,"h":250,"adm":"${'x'.repeat(HUGE_BYTES)}"}]}]}`);

  /** @param {string} impid @param {number | string} price (a string only for the NaN-price fault) @param {Record<string, unknown>} [extra] */
  const validBid = (impid, price, extra = {}) => {
    const id = `${o.name}-${++seq}`;
    stats.bids++;
    return {
      id,
      impid,
      price,
      adm: `<div>chaos ad ${id}</div><!--pbid:${id}-->`,
      nurl: `${base}/win?pbid=${id}&price=\${AUCTION_PRICE}`,
      adomain: ['chaos.example'],
      crid: `cr-${o.name}`,
      cid: 'chaos',
      w: 300,
      h: 250,
      ...extra,
    };
  };

  /** @param {any} body @param {object[]} bids */
  const answer = (body, bids) => JSON.stringify({ id: body?.id ?? '', cur: 'USD', seatbid: [{ seat: o.name, bid: bids }] });
  /** @param {any} body */
  const imps = (body) => (Array.isArray(body?.imp) ? body.imp.filter((/** @type {any} */ imp) => imp && typeof imp.id === 'string') : []);

  /** @param {import('node:http').ServerResponse} res @param {string} text */
  const sendJson = (res, text) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET') {
      if (url.pathname === '/stats') return sendJson(res, JSON.stringify({ ...stats, mode }));
      if (url.pathname === '/win') {
        const pbid = url.searchParams.get('pbid') ?? '';
        stats.winHits[pbid] = (stats.winHits[pbid] ?? 0) + 1;
      }
      return res.writeHead(200, { 'content-length': 0 }).end();
    }
    const raw = await readBody(req);
    if (url.pathname === '/control') {
      const next = parseJson(raw)?.mode;
      if (!MODES.includes(next)) return res.writeHead(400).end(`unknown mode ${String(next)}\n`);
      mode = next;
      return res.writeHead(204).end();
    }
    stats.requests++;
    const body = parseJson(raw);
    switch (mode) {
      case 'nobid':
        return res.writeHead(204).end();
      case 'hang':
        return undefined;
      case 'huge':
        return res.writeHead(200, { 'content-type': 'application/json', 'content-length': hugeBody.length }).end(hugeBody);
      case 'junk':
        return sendJson(res, `{"id":"${body?.id ?? ''}","seatbid":[{"bid":[{"id":"j","impid":`);
      case 'cut': {
        const text = Buffer.from(answer(body, imps(body).map((/** @type {any} */ imp) => validBid(imp.id, o.price * 2))));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length });
        res.write(text.subarray(0, Math.floor(text.length / 2)), () => res.destroy());
        return undefined;
      }
      case 'late': {
        const text = answer(body, imps(body).map((/** @type {any} */ imp) => validBid(imp.id, o.price * 2)));
        setTimeout(() => {
          if (!res.destroyed) sendJson(res, text);
        }, o.lateMs);
        return undefined;
      }
      case 'badbids': {
        const bids = imps(body).flatMap((/** @type {any} */ imp) => [
          validBid('no-such-imp', o.price * 2),
          validBid(imp.id, o.price * 2, { w: 728, h: 90 }),
          validBid(imp.id, 'NaN'),
        ]);
        return sendJson(res, answer(body, bids));
      }
      default: {
        const bids = imps(body).map((/** @type {any} */ imp) => validBid(imp.id, o.price));
        if (bids.length === 0) return res.writeHead(204).end();
        return sendJson(res, answer(body, bids));
      }
    }
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  base = `http://127.0.0.1:${address.port}`;
  return {
    url: `${base}/openrtb2`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

/** CLI entry: `node chaos/dsp.mjs --name <n> --mode <mode> [--price 1] [--late-ms 400] [--port 0]`. */
async function main() {
  const { values } = parseArgs({
    options: {
      name: { type: 'string', default: 'chaos-dsp' },
      mode: { type: 'string', default: 'bid' },
      price: { type: 'string', default: '1' },
      'late-ms': { type: 'string', default: '400' },
      port: { type: 'string', default: '0' },
    },
  });
  if (!MODES.includes(values.mode)) throw new Error(`--mode must be one of ${MODES.join(', ')}`);
  const dsp = await startChaosDsp({ name: values.name, mode: values.mode, price: Number(values.price), lateMs: Number(values['late-ms']), port: Number(values.port) });
  process.stdout.write(`chaos-dsp ${values.name} listening on ${dsp.url}\n`);
  const stop = () => void dsp.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`chaos-dsp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
