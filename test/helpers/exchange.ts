/**
 * Starts a real exchange in-process for end-to-end tests: the real app on 127.0.0.1 port 0, a
 * real SQLite file in a temp dir, one publisher and the given demand partners created through
 * the admin API. The clock is the system clock shifted by a movable offset (`clock.shift(ms)`),
 * so tests can age tokens without sleeping while deadlines still run on real time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { defaults } from '../../src/config/defaults.js';
import { mergeConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import type { Clock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { freePort } from '../../src/cli/free-port.js';

/** The system clock with a wall-time offset tests can move. */
export class ShiftedClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  monotonicMs(): number {
    return performance.now();
  }
  shift(ms: number): void {
    this.offsetMs += ms;
  }
}

/** A demand partner to create (admin API body, snake_case). */
export interface TestPartner {
  name: string;
  endpoint: string;
  currency?: string;
  timeout_ms?: number;
  gzip?: boolean;
  qps_limit?: number | null;
  /** IAB TCF vendor id (DESIGN section 11). */
  gvl_vendor_id?: number | null;
  /** '2.5' (default) or '2.6'. */
  openrtb_version?: '2.5' | '2.6';
  /** Media types the partner takes (default all four). */
  media_types?: Array<'banner' | 'video' | 'audio' | 'native'>;
}

/** A running test exchange. */
export interface TestExchange {
  url: string;
  apiKey: string;
  adminKey: string;
  publisherId: string;
  partnerIds: string[];
  runtime: Runtime;
  clock: ShiftedClock;
  dir: string;
  /** POSTs a bid request (object or raw string/Buffer) with the publisher key unless headers override it. */
  bid(body: unknown, options?: { headers?: Record<string, string>; query?: string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; json(): any }>;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json(): any }>;
  close(): Promise<void>;
}

/** Starts an exchange with `partners`; `config` overrides defaults (deep-merged). */
export async function startTestExchange(options: { partners?: TestPartner[]; config?: Record<string, unknown>; dir?: string } = {}): Promise<TestExchange> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'adx-e2e-')));
  const adminKey = 'test-admin-key';
  let config: Config = mergeConfig(defaults as Config, {
    // A few warm-up auctions keep that code path under test without slowing the hundreds of
    // exchanges the suite starts; test/e2e/cold-start.test.ts runs the default.
    server: { port: 0, host: '127.0.0.1', publicUrl: 'http://127.0.0.1:1', warmUpAuctions: 10 },
    storage: { databaseUrl: join(dir, 'adx.db') },
    security: { adminKey, secretKey: 'test-secret-key' },
    log: { level: 'silent' },
    // The exchange shares its event loop with the test code here (gzipSync of a 64 MiB bomb,
    // fixture generation), so event-loop-delay shedding would fire on the tests' own work.
    // The adaptive in-flight limit is off for the same reason (a loaded machine brings answers
    // close to tmax and would shrink it, shedding a test's concurrent requests) and because tests
    // shift the clock; test/faults/overload.test.ts turns it on.
    overload: { maxEventLoopDelayMs: 5000, initialLimit: 0 },
  });
  config = mergeConfig(config, options.config ?? {});
  const clock = new ShiftedClock();
  // The notice URLs embed the public URL, so the port is chosen before the app is built.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  config = mergeConfig(config, { server: { port, publicUrl: url } });
  const runtime = await createRuntime({ config, log: silentLogger(), clock });
  await runtime.start();

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await request(`${url}${path}`, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: () => (text ? JSON.parse(text) : undefined) };
  };
  const pub = await admin('POST', '/v1/publishers', { name: 'Test Publisher', domain: 'pub.example', domains: ['pub.example'] });
  if (pub.status !== 201) throw new Error(`publisher create failed: ${pub.status}`);
  const partnerIds: string[] = [];
  for (const p of options.partners ?? []) {
    const res = await admin('POST', '/v1/demand-partners', p);
    if (res.status !== 201) throw new Error(`partner create failed: ${res.status} ${JSON.stringify(res.json())}`);
    partnerIds.push(res.json().id);
  }
  const apiKey: string = pub.json().api_key;

  return {
    url,
    apiKey,
    adminKey,
    publisherId: pub.json().id,
    partnerIds,
    runtime,
    clock,
    dir,
    async bid(body, opts = {}) {
      const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      const res = await request(`${url}/v1/openrtb/2.5/bidrequest${opts.query ?? ''}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...opts.headers },
        body: raw,
      });
      const buf = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers, body: buf, json: () => JSON.parse(buf.toString('utf8')) };
    },
    admin,
    async close() {
      await runtime.close();
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
