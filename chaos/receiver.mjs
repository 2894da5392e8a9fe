/**
 * The chaos run's webhook receiver, inside the harness process on 127.0.0.1: it verifies every
 * delivery with the `standardwebhooks` package (Standard Webhooks v1, as a partner would) and
 * keeps the `bid_id` of each verified `auction.complete` (DESIGN section 6), so the harness can
 * match answered bids against delivered events. Its mode is the fault:
 *
 * - `up`: verified deliveries answered 204; a bad signature 400 (counted as `failed`);
 * - `fail500`: every delivery answered 500 (counted as `refused`, nothing kept);
 * - `down`: the listening socket is closed and open connections destroyed (connection refused);
 *   `up` listens again on the same port.
 *
 * Importing this module does nothing.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** Largest delivery read, bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * @typedef {object} ChaosReceiver
 * @property {string} url `http://127.0.0.1:<port>`, the endpoint URL to register
 * @property {(secret: string) => void} setSecret the endpoint's `whsec_...` secret, once known
 * @property {(mode: 'up' | 'fail500' | 'down') => Promise<void>} setMode
 * @property {Set<string>} deliveredBidIds `bid_id`s of verified `auction.complete` deliveries
 * @property {() => { received: number, verified: number, duplicates: number, failed: number, refused: number }} stats
 * @property {() => Promise<void>} close
 */

/**
 * Starts the receiver on an ephemeral loopback port, in mode `up`.
 * @returns {Promise<ChaosReceiver>}
 */
export async function startChaosReceiver() {
  /** @type {Webhook | undefined} */
  let webhook;
  /** @type {'up' | 'fail500' | 'down'} */
  let mode = 'up';
  const counts = { received: 0, verified: 0, duplicates: 0, failed: 0, refused: 0 };
  /** @type {Set<string>} */
  const deliveredBidIds = new Set();
  /** @type {Set<string>} */
  const seenIds = new Set();

  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  const handle = async (req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
      chunks.push(chunk);
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    counts.received++;
    if (mode === 'fail500') {
      counts.refused++;
      return void res.writeHead(500, { 'content-type': 'text/plain' }).end('chaos: failing on purpose\n');
    }
    const body = Buffer.concat(chunks).toString('utf8');
    /** @type {Record<string, string>} */
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    try {
      if (!webhook) throw new Error('no secret yet');
      webhook.verify(body, headers, { jsonParse: false });
    } catch {
      counts.failed++;
      return void res.writeHead(400).end();
    }
    const id = headers['webhook-id'] ?? '';
    if (seenIds.has(id)) counts.duplicates++;
    else {
      seenIds.add(id);
      counts.verified++;
      if ((req.url ?? '').endsWith('/auction-complete')) {
        const bidId = JSON.parse(body).bid_id;
        if (typeof bidId === 'string') deliveredBidIds.add(bidId);
      }
    }
    res.writeHead(204).end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  /** @param {number} port */
  const listen = (port) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve(undefined);
      });
    });
  await listen(0);
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const closeServer = () =>
    new Promise((resolve) => {
      server.close(() => resolve(undefined));
      server.closeAllConnections();
    });

  return {
    url: `http://127.0.0.1:${port}`,
    setSecret: (secret) => void (webhook = new Webhook(secret)),
    async setMode(next) {
      if (next === mode) return;
      if (next === 'down') await closeServer();
      else if (mode === 'down') await listen(port);
      mode = next;
    },
    deliveredBidIds,
    stats: () => ({ ...counts }),
    close: async () => {
      if (mode !== 'down') await closeServer();
      mode = 'down';
    },
  };
}
