/**
 * `GET /v1/stats/series` over HTTP (fastify inject) on a real SQLite store, fed through the real
 * counter aggregator (`addPartner`, `observeLatency`, `add`, then `flush`), and the series roll-up
 * task. The store-level cases (steps, midnight, zero fill, roll-up sums) run on both backends in
 * `test/contract/series-store-contract.ts`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installProblemHandlers } from '../../src/http/problem.js';
import { statsSeriesRoutes } from '../../src/http/reports/series-route.js';
import { countPartnerCalls } from '../../src/reporting/series-sink.js';
import { createSeriesRollup, rollupCutoffMs } from '../../src/reporting/series-rollup.js';
import { createReportingHarness, DAY0, DAY_MS, HOUR_MS, MINUTE_MS, type ReportingHarness } from './helpers.js';

const ADMIN_KEY = 'test-admin-key-0123456789';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

describe('GET /v1/stats/series', () => {
  let h: ReportingHarness;
  let app: FastifyInstance;

  beforeEach(async () => {
    h = await createReportingHarness(DAY0 + 10 * HOUR_MS);
    app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } } });
    installProblemHandlers(app);
    await app.register(statsSeriesRoutes, { store: h.store, adminKey: ADMIN_KEY });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    await h.close();
  });

  const get = (query: string, headers: Record<string, string> = auth) => app.inject({ method: 'GET', url: `/v1/stats/series?${query}`, headers });

  it('needs the admin key', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/stats/webhooks' })).statusCode).toBe(401);
    expect((await get('from=2026-03-10T00:00:00Z&to=2026-03-10T01:00:00Z&step=hour', {})).statusCode).toBe(401);
    expect((await get('from=2026-03-10T00:00:00Z&to=2026-03-10T01:00:00Z&step=hour', { authorization: 'Bearer wrong' })).statusCode).toBe(401);
  });

  it('answers what the aggregator flushed: exchange and partner series with latency percentiles, empty minutes as zeros', async () => {
    const t = h.clock.now();
    h.counters.add('pub_a', { requests: 2, imps: 2, impsFilled: 1, bids: 1 });
    h.counters.observeLatency('exchange', 'pub_a', 3.2);
    h.counters.observeLatency('exchange', 'pub_a', 48);
    countPartnerCalls(
      h.counters,
      [
        { partnerId: 'dsp_a', adapter: 'openrtb25', outcome: 'bids', latencyMs: 30, errors: [] },
        { partnerId: 'dsp_b', adapter: 'openrtb25', outcome: 'timeout', latencyMs: 200, errors: [] },
        { partnerId: 'dsp_c', adapter: 'openrtb25', outcome: 'skipped', latencyMs: 0, errors: [] },
        { partnerId: 'dsp_d', adapter: 'openrtb25', outcome: 'skipped', latencyMs: 0, errors: [{ kind: 'privacy_blocked', message: 'gdpr_purpose2_denied' }], privacyBlocked: 'gdpr_purpose2_denied' } as never,
      ],
      [{ partnerId: 'dsp_a' }, { partnerId: 'dsp_a' }] as never,
      t,
    );
    h.counters.addPartner('dsp_a', { wins: 1 });
    h.clock.advance(2 * MINUTE_MS);
    h.counters.add('pub_a', { requests: 1, imps: 1 });
    await h.counters.flush();

    const from = new Date(t).toISOString();
    const to = new Date(t + 3 * MINUTE_MS).toISOString();
    const res = await get(`from=${from}&to=${to}&step=minute`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ from, to, step: 'minute' });
    expect(body.points.map((p: { requests: number }) => p.requests)).toEqual([2, 0, 1]);
    expect(body.points[0]).toMatchObject({ imps_filled: 1, fill_rate: 0.5, latency_p50_ms: 4, latency_p99_ms: 50 });
    expect(body.points[1]).toMatchObject({ requests: 0, latency_p50_ms: 0 });

    const a = (await get(`from=${from}&to=${to}&step=minute&partner_id=dsp_a`)).json();
    expect(a.points[0]).toEqual({ t: from, calls: 1, bids: 2, timeouts: 0, errors: 0, wins: 1, privacy_blocked: 0, latency_p50_ms: 30, latency_p99_ms: 30 });
    const b = (await get(`from=${from}&to=${to}&step=hour&partner_id=dsp_b`)).json();
    expect(b.points).toEqual([{ t: new Date(DAY0 + 10 * HOUR_MS).toISOString(), calls: 1, bids: 0, timeouts: 1, errors: 0, wins: 0, privacy_blocked: 0, latency_p50_ms: 200, latency_p99_ms: 200 }]);
    // A skipped call was never made: nothing counted.
    expect((await get(`from=${from}&to=${to}&step=day&partner_id=dsp_c`)).json().points[0]).toMatchObject({ calls: 0 });
    // A partner kept out for privacy was not called either, and is counted as a privacy block.
    expect((await get(`from=${from}&to=${to}&step=day&partner_id=dsp_d`)).json().points[0]).toMatchObject({ calls: 0, privacy_blocked: 1 });
    // An offset is read as the instant it names.
    const shifted = (await get(`from=${encodeURIComponent('2026-03-10T11:00:00+01:00')}&to=${encodeURIComponent('2026-03-10T11:01:00+01:00')}&step=minute`)).json();
    expect(shifted.from).toBe('2026-03-10T10:00:00.000Z');
    expect(shifted.points[0].requests).toBe(2);
  });

  it('GET /v1/stats/webhooks counts the messages of each endpoint by status', async () => {
    await h.store.outbox.enqueue([
      { id: 'msg_1', endpointId: 'ep_all', eventKind: 'webhook.test', body: '{}', publisherId: null, status: 'failed', attempts: 1, nextAttemptAtMs: 0, createdAtMs: DAY0, claimedBy: null, claimExpiresAtMs: null, deliveredAtMs: null, lastError: 'HTTP 503' },
      { id: 'msg_2', endpointId: 'ep_all', eventKind: 'webhook.test', body: '{}', publisherId: null, status: 'pending', attempts: 0, nextAttemptAtMs: 0, createdAtMs: DAY0, claimedBy: null, claimExpiresAtMs: null, deliveredAtMs: null, lastError: null },
    ]);
    const res = await app.inject({ method: 'GET', url: '/v1/stats/webhooks', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [{ endpoint_id: 'ep_all', pending: 1, delivered: 0, failed: 1 }] });
  });

  it('refuses bad input with problem+json naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['from=yesterday&to=2026-03-10T01:00:00Z&step=hour', 'from'],
      ['from=2026-03-10T00:00:00&to=2026-03-10T01:00:00Z&step=hour', 'from'],
      ['from=2026-03-10T00:00:00Z&to=2026-03-10T01:00:00Z&step=week', 'step'],
      ['from=2026-03-10T00:00:00Z&step=hour', 'to'],
      ['from=2026-03-10T01:00:00Z&to=2026-03-10T00:00:00Z&step=hour', 'to'],
      ['from=2026-01-01T00:00:00Z&to=2026-03-10T00:00:00Z&step=minute', 'step'],
      ['from=2026-03-10T00:00:00Z&to=2026-03-10T01:00:00Z&step=hour&partner_id=dsp_a&publisher_id=pub_a', 'partner_id'],
    ];
    for (const [query, field] of cases) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().errors.map((e: { field: string }) => e.field), query).toContain(field);
    }
  });

  it('the roll-up task folds minutes older than the retention into hours, and the day total stays', async () => {
    const old = DAY0 + 10 * HOUR_MS;
    h.counters.add('pub_a', { requests: 1 }, old + 5 * MINUTE_MS);
    h.counters.add('pub_a', { requests: 2 }, old + 6 * MINUTE_MS);
    await h.counters.flush();
    h.clock.advance(3 * DAY_MS);
    expect(rollupCutoffMs(h.clock.now(), 2)).toBe(DAY0 + DAY_MS + 10 * HOUR_MS);
    const rollup = createSeriesRollup({ store: h.store, clock: h.clock, log: h.log, minuteRetentionDays: 2, intervalMs: HOUR_MS });
    expect(await rollup.runOnce()).toBe(2);
    const q = (step: string) => `from=${new Date(old).toISOString()}&to=${new Date(old + HOUR_MS).toISOString()}&step=${step}`;
    expect((await get(q('minute'))).json().points.slice(0, 7).map((p: { requests: number }) => p.requests)).toEqual([3, 0, 0, 0, 0, 0, 0]);
    expect((await get(q('hour'))).json().points[0].requests).toBe(3);
  });
});
