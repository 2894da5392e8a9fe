/**
 * Test helpers for the notices tests: a fake partner HTTP server on 127.0.0.1 port 0 that
 * records what it gets and answers statuses on demand (svix `TestReceiver` style), a recording
 * counter sink, and a reader for prom-client counters.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Counter } from 'prom-client';
import type { CounterFields, CounterSink } from '../../src/reporting/counter-sink.js';

/** One request the fake partner received. */
export interface ReceivedCall {
  method: string;
  /** Path and query as sent. */
  url: string;
}

/** A fake partner endpoint. */
export interface FakePartner {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  calls: ReceivedCall[];
  /**
   * Statuses to answer, in order; the last one repeats. `hang` never answers (for timeouts).
   * Default: 200.
   */
  statuses: Array<number | 'hang'>;
  /** Resolves when the server has received at least `n` calls. */
  waitForCalls(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a fake partner on 127.0.0.1, port 0. */
export async function startFakePartner(): Promise<FakePartner> {
  const calls: ReceivedCall[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hanging = new Set<IncomingMessage>();
  const partner: FakePartner = {
    baseUrl: '',
    calls,
    statuses: [200],
    waitForCalls(n) {
      if (calls.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close: () => close(server),
  };
  const server: Server = createServer((req, res) => {
    const index = calls.length;
    calls.push({ method: req.method ?? '', url: req.url ?? '' });
    for (const w of waiters.splice(0)) {
      if (calls.length >= w.n) w.resolve();
      else waiters.push(w);
    }
    const status = partner.statuses[Math.min(index, partner.statuses.length - 1)] ?? 200;
    if (status === 'hang') {
      hanging.add(req);
      return;
    }
    if (status >= 300 && status < 400) res.setHeader('location', '/redirected');
    res.statusCode = status;
    res.end(status === 200 ? 'ok' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  partner.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return partner;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port on 127.0.0.1 that nothing listens on (a server was bound to it, then closed). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One `CounterSink.add` call. */
export interface CounterCall {
  publisherId: string;
  fields: Partial<CounterFields>;
  atMs: number | undefined;
}

/** A counter sink that records its calls. */
export function recordingCounters(): CounterSink & { calls: CounterCall[] } {
  const calls: CounterCall[] = [];
  return {
    calls,
    add(publisherId, fields, atMs) {
      calls.push({ publisherId, fields, atMs });
    },
  };
}

/** Current value of a prom-client counter for exactly these labels (0 when never incremented). */
export async function counterValue<L extends string>(counter: Counter<L>, labels: Record<L, string>): Promise<number> {
  const { values } = await counter.get();
  const entry = values.find((v) => Object.entries(labels).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want));
  return entry?.value ?? 0;
}
