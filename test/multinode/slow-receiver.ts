/**
 * A webhook receiver for the multi-node test: a real node:http server on 127.0.0.1 that verifies
 * every POST with `standardwebhooks` (Standard Webhooks v1) and records each one, repeats
 * included, so the test can count how often each `webhook-id` arrived. Unlike
 * `cli/webhook-receiver.ts` it can answer slowly (`setDelayMs`), to keep deliveries in flight
 * while a node is killed, and it takes the secret after it has started (the endpoint's URL must
 * exist before the exchange reveals the secret).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One POST as received. */
export interface ReceivedPost {
  /** `webhook-id`. */
  id: string;
  /** Last path segment, e.g. `auction-complete`. */
  kind: string;
  verified: boolean;
  /** `bid_id` of the JSON body, when there is one. */
  bidId: string | undefined;
}

/** A running receiver. */
export interface SlowReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every POST, in arrival order (recorded when it arrives, before the delayed answer). */
  posts: ReceivedPost[];
  /** Until set, every POST is answered 503 (a retryable failure). */
  setSecret(secret: string): void;
  /** Answers this many ms after a POST arrives (default 0). */
  setDelayMs(delayMs: number): void;
  close(): Promise<void>;
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the receiver on 127.0.0.1, port 0. */
export async function startSlowReceiver(): Promise<SlowReceiver> {
  let webhook: Webhook | undefined;
  let delayMs = 0;
  const posts: ReceivedPost[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      if (req.method !== 'POST') return void res.writeHead(405).end();
      if (webhook === undefined) return void res.writeHead(503).end();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      let verified = true;
      try {
        webhook.verify(body, headers);
      } catch {
        verified = false;
      }
      let bidId: string | undefined;
      try {
        const parsed = JSON.parse(body) as { bid_id?: unknown };
        bidId = typeof parsed.bid_id === 'string' ? parsed.bid_id : undefined;
      } catch {
        bidId = undefined;
      }
      const kind = (req.url ?? '').split('?')[0]!.split('/').filter(Boolean).pop() ?? '';
      posts.push({ id: headers['webhook-id'] ?? '', kind, verified, bidId });
      const answer = () => {
        if (!res.destroyed) res.writeHead(verified ? 204 : 400).end();
      };
      if (delayMs <= 0) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, delayMs);
      timers.add(timer);
    })().catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    setSecret: (secret) => {
      webhook = new Webhook(secret);
    },
    setDelayMs: (ms) => {
      delayMs = ms;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
