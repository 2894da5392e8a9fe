/**
 * A fake demand partner (DSP) for tests: a real node:http server on 127.0.0.1, port 0, that
 * records what it gets and answers as told (STYLE 14, after svix's `TestReceiver`).
 *
 * - POST (any path): recorded in `requests` (headers, the body as received in `rawBody`, and
 *   `body` = the JSON parsed after gunzip when `content-encoding: gzip`, else undefined when not
 *   JSON), then answered per the current behaviour.
 * - GET (any path): recorded in `hits` as `{path, query}` and answered 200 (for nurl/burl/lurl
 *   notice calls), or per the behaviour's `getStatus`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Bid, BidRequest } from '../../src/domain/openrtb.js';

/** How the fake answers one POST. Every field optional: the default is 204. */
export interface FakeDspAnswer {
  /** HTTP status (default 200 when `body` or `raw` is given, else 204). */
  status?: number;
  /** JSON-serialized when not a string; a string is sent as-is. */
  body?: unknown;
  /** Bytes sent as-is (wins over `body`). */
  raw?: Buffer;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Wait this long (ms, real time) before answering. */
  delayMs?: number;
  /** gzip the payload and send `content-encoding: gzip`. */
  gzip?: boolean;
  /** Announce the full `content-length`, send only this many bytes, then destroy the socket. */
  destroyAfterBytes?: number;
  /** Never answer (the socket is destroyed on `close()`). */
  neverAnswer?: boolean;
  /**
   * Stream the payload in chunks of this many bytes (chunked encoding, no content-length),
   * `streamIntervalMs` apart; stops when the client goes away (see `bytesStreamed`).
   */
  streamChunkBytes?: number;
  streamIntervalMs?: number;
}

/** A behaviour: computes the answer from the parsed request body (undefined when not JSON). */
export type FakeDspBehaviour = (body: BidRequest | undefined, req?: IncomingMessage) => FakeDspAnswer | Promise<FakeDspAnswer>;

/** Ready-made behaviours. */
export type FakeDspPreset = 'bid' | 'no_bid' | 'empty_object' | 'empty_seatbid' | 'junk' | 'error_500';

/** One recorded POST. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** JSON body after gunzip; undefined when not JSON. */
  body: any;
  /** The body bytes exactly as received (still gzipped when the client gzipped). */
  rawBody: Buffer;
  /** The client's port: equal ports mean a reused keep-alive connection. */
  remotePort: number | undefined;
}

/** A running fake DSP. */
export interface FakeDsp {
  /** `http://127.0.0.1:<port>/openrtb2` (POST here; any path works). */
  url: string;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  requests: RecordedRequest[];
  /** GET requests (notice calls): path and query parameters. */
  hits: Array<{ path: string; query: Record<string, string> }>;
  /** Bytes written by streamed answers before they ended or the client went away. */
  bytesStreamed: number;
  setBehaviour(behaviour: FakeDspBehaviour | FakeDspPreset): void;
  close(): Promise<void>;
}

/** A bid for `imp` with sensible defaults (price 1.5 CPM, 300x250, adm, adomain, crid). */
export function fakeBid(imp: { id: string }, overrides: Partial<Bid> = {}): Bid {
  return {
    id: `bid-${imp.id}`,
    impid: imp.id,
    price: 1.5,
    adm: `<div>fake ad for ${imp.id}</div>`,
    adomain: ['advertiser.example'],
    crid: `creative-${imp.id}`,
    cid: 'campaign-1',
    w: 300,
    h: 250,
    ...overrides,
  };
}

/** Behaviour: one bid per imp at `price` (CPM), in seat `seat`, response `cur`. */
export function bidEveryImp(options: { price?: number; seat?: string; cur?: string; bid?: Partial<Bid> } = {}): (body: BidRequest | undefined) => FakeDspAnswer {
  return (body) => {
    if (!body || !Array.isArray(body.imp)) return { status: 400, body: 'not an OpenRTB request' };
    return {
      status: 200,
      body: {
        id: body.id,
        cur: options.cur ?? 'USD',
        seatbid: [{ seat: options.seat ?? 'fake-seat', bid: body.imp.map((imp) => fakeBid(imp, { price: options.price ?? 1.5, ...options.bid })) }],
      },
    };
  };
}

function presetBehaviour(preset: FakeDspPreset): FakeDspBehaviour {
  switch (preset) {
    case 'bid':
      return bidEveryImp();
    case 'no_bid':
      return () => ({ status: 204 });
    case 'empty_object':
      return () => ({ status: 200, body: {} });
    case 'empty_seatbid':
      return (body) => ({ status: 200, body: { id: body?.id ?? '', seatbid: [] } });
    case 'junk':
      return () => ({ status: 200, body: '<html>not json</html>', headers: { 'content-type': 'text/html' } });
    case 'error_500':
      return () => ({ status: 500, body: 'internal error' });
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts a fake DSP on 127.0.0.1, port 0, answering per `behaviour` (default preset `bid`). */
export async function startFakeDsp(behaviour: FakeDspBehaviour | FakeDspPreset = 'bid'): Promise<FakeDsp> {
  let current: FakeDspBehaviour = typeof behaviour === 'string' ? presetBehaviour(behaviour) : behaviour;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const fake: FakeDsp = {
    url: '',
    origin: '',
    requests: [],
    hits: [],
    bytesStreamed: 0,
    setBehaviour(next) {
      current = typeof next === 'string' ? presetBehaviour(next) : next;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function streamPayload(res: ServerResponse, payload: Buffer, chunkBytes: number, intervalMs: number): Promise<void> {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    for (let offset = 0; offset < payload.length && !closed; offset += chunkBytes) {
      const chunk = payload.subarray(offset, offset + chunkBytes);
      res.write(chunk);
      fake.bytesStreamed += chunk.length;
      if (intervalMs > 0) await sleep(intervalMs);
    }
    if (!closed) res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const rawBody = await readAll(req);
    if (req.method === 'GET') {
      fake.hits.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    let body: any;
    try {
      const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(rawBody) : rawBody;
      body = JSON.parse(text.toString('utf8'));
    } catch {
      body = undefined;
    }
    fake.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers, body, rawBody, remotePort: req.socket.remotePort });

    const answer = await current(body, req);
    if (answer.neverAnswer) return;
    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, answer.delayMs);
        timers.add(timer);
      });
    }
    if (res.destroyed) return;
    let payload: Buffer =
      answer.raw ?? (answer.body === undefined ? Buffer.alloc(0) : Buffer.from(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)));
    const headers: Record<string, string> = { ...answer.headers };
    if (payload.length > 0 && !headers['content-type']) headers['content-type'] = 'application/json';
    if (answer.gzip) {
      payload = gzipSync(payload);
      headers['content-encoding'] = 'gzip';
    }
    const status = answer.status ?? (payload.length > 0 ? 200 : 204);

    if (answer.streamChunkBytes) {
      res.writeHead(status, headers);
      await streamPayload(res, payload, answer.streamChunkBytes, answer.streamIntervalMs ?? 0);
      return;
    }
    if (answer.destroyAfterBytes !== undefined) {
      res.writeHead(status, { ...headers, 'content-length': String(payload.length) });
      res.write(payload.subarray(0, answer.destroyAfterBytes), () => res.socket?.destroy());
      return;
    }
    res.writeHead(status, status === 204 ? headers : { ...headers, 'content-length': String(payload.length) });
    res.end(status === 204 ? undefined : payload);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.origin = `http://127.0.0.1:${port}`;
  fake.url = `${fake.origin}/openrtb2`;
  return fake;
}
