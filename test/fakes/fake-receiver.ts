/**
 * A fake webhook receiver for tests (STYLE 14, after svix's `TestReceiver` in
 * `tests/it/utils/mod.rs`): a real node:http server on 127.0.0.1, port 0, that records every
 * request it gets and answers as told (default 200 `ok`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded request (recorded when its body has fully arrived, before the answer). */
export interface ReceivedDelivery {
  method: string;
  /** Path and query, e.g. `/hooks/webhooks/auction-complete`. */
  path: string;
  headers: IncomingMessage['headers'];
  /** The body exactly as received, UTF-8. */
  body: string;
  /** Real wall-clock time of arrival, ms since the epoch (for ordering in tests, not asserted as speed). */
  receivedAtMs: number;
}

/** How to answer one request. */
export interface FakeReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long (ms, real time) before answering. */
  delayMs?: number;
}

/** Computes the answer for a recorded request. */
export type FakeReceiverRespond = (req: ReceivedDelivery) => FakeReceiverAnswer | Promise<FakeReceiverAnswer>;

/** A running fake receiver. */
export interface FakeReceiver {
  /** `http://127.0.0.1:<port>` (no trailing slash): use it, or a path under it, as an endpoint URL. */
  url: string;
  port: number;
  deliveries: ReceivedDelivery[];
  setRespond(respond: FakeReceiverRespond): void;
  /** Resolves once at least `count` requests were recorded; rejects after `timeoutMs` (default 5000). */
  waitForDeliveries(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  /** Closes the server and every open connection (answers still delayed are dropped). */
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 port 0. */
export async function startFakeReceiver(options: { respond?: FakeReceiverRespond } = {}): Promise<FakeReceiver> {
  let respond: FakeReceiverRespond = options.respond ?? (() => ({ status: 200, body: 'ok' }));
  const deliveries: ReceivedDelivery[] = [];
  const waiters: Array<() => void> = [];
  const timers = new Set<NodeJS.Timeout>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const delivery: ReceivedDelivery = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      receivedAtMs: Date.now(),
    };
    deliveries.push(delivery);
    for (const waiter of waiters.splice(0)) waiter();
    let answer: FakeReceiverAnswer;
    try {
      answer = await respond(delivery);
    } catch {
      answer = { status: 500, body: 'fake receiver: respond threw' };
    }
    if (answer.delayMs !== undefined && answer.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, answer.delayMs);
        timers.add(timer);
      });
    }
    if (res.destroyed) return;
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body ?? '');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    deliveries,
    setRespond(next) {
      respond = next;
    },
    waitForDeliveries(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error(`fake receiver: ${deliveries.length} of ${count} deliveries after ${timeoutMs} ms`)), timeoutMs);
        const check = (): void => {
          if (deliveries.length >= count) {
            clearTimeout(timeout);
            resolve(deliveries);
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
