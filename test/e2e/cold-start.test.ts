/**
 * Cold start (issue 15): `/readyz` answers 503 until the bid path is warm, and once it answers 200
 * a burst of 4 clients x 10 requests (tmax 120 ms, one loopback DSP answering at once) gets a bid
 * every time: nothing shed, nothing the exchange itself counts as answered after tmax. The
 * assertions are on the exchange's own counters (`adx_requests_shed_total`,
 * `adx_bid_answers_late_total`) and the answers' status, never on wall time. The exchange runs
 * the production overload settings (30 ms event-loop delay, sustained 500 ms) and warm-up size.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaults } from '../../src/config/defaults.js';
import { mergeConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';
import { scrape, sumOf } from '../faults/metrics-text.js';

const CLIENTS = 4;
const REQUESTS_PER_CLIENT = 10;
const TMAX_MS = 120;

const bidRequest = {
  id: 'cold-req',
  imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.1 }],
  site: { domain: 'pub.example', page: 'https://pub.example/', publisher: { id: 'p1' } },
  device: { ua: 'cold-start-test', ip: '203.0.113.9' },
  tmax: TMAX_MS,
};

describe('cold start: not ready until warm, then no shed and no late answer', () => {
  it('/readyz is 503 with the warm check failing before start() has warmed the bid path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adx-cold-'));
    const config = mergeConfig(defaults as Config, {
      server: { port: 0, host: '127.0.0.1', publicUrl: 'http://127.0.0.1:1' },
      storage: { databaseUrl: join(dir, 'adx.db') },
      security: { adminKey: 'k', secretKey: 'test-secret-key' },
      log: { level: 'silent' },
    });
    const runtime = await createRuntime({ config, log: silentLogger() });
    try {
      const before = await runtime.app.inject({ method: 'GET', url: '/readyz' });
      expect(before.statusCode).toBe(503);
      expect(before.json().checks.warm).toBe('failing');
      await runtime.start();
      const after = await runtime.app.inject({ method: 'GET', url: '/readyz' });
      expect(after.statusCode, after.body).toBe(200);
      expect(after.json().checks.warm).toBe('ok');
      // Warm-up stores and counts nothing: no bid record, no request in /metrics.
      const metrics = await runtime.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).not.toMatch(/adx_requests_total\{[^}]*type="bid"/);
      expect(metrics.body).not.toMatch(/^adx_imps_total [1-9]/m);
    } finally {
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('a burst right after /readyz turns 200', () => {
    let dsp: FakeDsp;
    let ex: TestExchange;

    beforeAll(async () => {
      dsp = await startFakeDsp(bidEveryImp({ price: 1.5 }));
      ex = await startTestExchange({
        partners: [{ name: 'loopback', endpoint: dsp.url }],
        // Production settings (the helper relaxes them for tests sharing the event loop).
        config: { server: { warmUpAuctions: defaults.server.warmUpAuctions }, overload: { maxEventLoopDelayMs: defaults.overload.maxEventLoopDelayMs } },
      });
    });
    afterAll(async () => {
      await ex?.close();
      await dsp?.close();
    });

    it(`${CLIENTS} clients x ${REQUESTS_PER_CLIENT} requests (tmax ${TMAX_MS}): every answer a bid, none shed, none late at the exchange`, async () => {
      const ready = await httpRequest(`${ex.url}/readyz`);
      await ready.body.dump();
      expect(ready.statusCode).toBe(200);

      const statuses: number[] = [];
      const body = JSON.stringify(bidRequest);
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = 0; i < REQUESTS_PER_CLIENT; i++) {
            const res = await httpRequest(`${ex.url}/v1/openrtb/2.5/bidrequest`, {
              method: 'POST',
              headers: { authorization: `Bearer ${ex.apiKey}`, 'content-type': 'application/json' },
              body,
            });
            await res.body.dump();
            statuses.push(res.statusCode);
          }
        }),
      );

      const samples = await scrape(ex.url);
      expect(sumOf(samples, 'adx_requests_shed_total')).toBe(0);
      expect(sumOf(samples, 'adx_bid_answers_late_total')).toBe(0);
      // A 204 here would be a shed answer or a commit past the deadline: every request has a bid.
      expect(sumOf(samples, 'adx_requests_total', { type: 'bid', status: 'nobid' })).toBe(0);
      expect(sumOf(samples, 'adx_requests_total', { type: 'bid', status: 'ok' })).toBe(CLIENTS * REQUESTS_PER_CLIENT);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    });
  });
});
