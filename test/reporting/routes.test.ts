import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlertRuleService } from '../../src/admin/alert-rules.js';
import { alertRuleRoutes } from '../../src/http/admin/alert-rules.js';
import { installProblemHandlers } from '../../src/http/problem.js';
import { reportRoutes } from '../../src/http/reports/routes.js';
import { createLiveStats } from '../../src/reporting/live-stats.js';
import { createReportScheduler } from '../../src/reporting/report-scheduler.js';
import { createReportingHarness, DAY0, HOUR_MS, type ReportingHarness } from './helpers.js';

const ADMIN_KEY = 'test-admin-key-0123456789';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

describe('alert-rule, report and stats routes', () => {
  let h: ReportingHarness;
  let app: FastifyInstance;

  beforeEach(async () => {
    h = await createReportingHarness();
    await h.store.publishers.create(
      { id: 'pub_a', name: 'A', domain: null, domains: [], browserAccess: false, auctionType: 1, reservePriceMicros: 0, sellerType: 'PUBLISHER', isConfidential: false, createdAtMs: DAY0, updatedAtMs: DAY0 },
      { id: 'key_a', publisherId: 'pub_a', keyHash: 'h', prefix: 'p', createdAtMs: DAY0, expiresAtMs: null },
    );
    const service = createAlertRuleService({ store: h.store, clock: h.clock, ids: h.ids });
    const scheduler = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log });
    const stats = createLiveStats({ clock: h.clock });
    stats.recordRequest(12, { imps: 1, impsFilled: 1, bids: 1 });
    app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } } });
    installProblemHandlers(app);
    await app.register(alertRuleRoutes, { service, adminKey: ADMIN_KEY });
    await app.register(reportRoutes, { scheduler, stats, adminKey: ADMIN_KEY });
    await app.ready();
  });

  afterEach(async () => {
    await app.close();
    await h.close();
  });

  it('answers 401 without or with a wrong admin key on every route', async () => {
    const calls = [
      { method: 'POST' as const, url: '/v1/alert-rules', payload: {} },
      { method: 'GET' as const, url: '/v1/alert-rules' },
      { method: 'DELETE' as const, url: '/v1/alert-rules/rule_1' },
      { method: 'GET' as const, url: '/v1/reports/daily?date=2026-03-10' },
      { method: 'POST' as const, url: '/v1/reports/daily/deliver', payload: { date: '2026-03-10' } },
      { method: 'GET' as const, url: '/v1/stats' },
    ];
    for (const call of calls) {
      expect((await app.inject(call)).statusCode, call.url).toBe(401);
      expect((await app.inject({ ...call, headers: { authorization: 'Bearer wrong' } })).statusCode, call.url).toBe(401);
    }
  });

  it('creates (201, whole resource), lists, gets and deletes alert rules', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/v1/alert-rules',
      headers: auth,
      payload: { metric: 'revenue', comparator: 'below', threshold: 12.5, window_minutes: 60, publisher_id: 'pub_a', note: 'ignored' },
    });
    expect(created.statusCode).toBe(201);
    const rule = created.json();
    expect(rule).toEqual({
      id: expect.stringMatching(/^rule_/),
      metric: 'revenue',
      comparator: 'below',
      threshold: 12.5,
      window_minutes: 60,
      publisher_id: 'pub_a',
      state: 'idle',
      alert_id: null,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect((await h.store.reporting.getAlertRule(rule.id))?.threshold).toBe(12_500_000); // stored as micros

    const fill = await app.inject({ method: 'POST', url: '/v1/alert-rules', headers: auth, payload: { metric: 'fill_rate', comparator: 'above', threshold: 0.9, window_minutes: 5 } });
    expect(fill.statusCode).toBe(201);
    expect(fill.json()).toMatchObject({ threshold: 0.9, publisher_id: null });

    const list = await app.inject({ method: 'GET', url: '/v1/alert-rules', headers: auth });
    expect(list.json().data.map((r: { id: string }) => r.id)).toEqual([rule.id, fill.json().id]);
    expect((await app.inject({ method: 'GET', url: `/v1/alert-rules/${rule.id}`, headers: auth })).json()).toEqual(rule);

    expect((await app.inject({ method: 'DELETE', url: `/v1/alert-rules/${rule.id}`, headers: auth })).statusCode).toBe(204);
    expect((await app.inject({ method: 'DELETE', url: `/v1/alert-rules/${rule.id}`, headers: auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/v1/alert-rules/${rule.id}`, headers: auth })).statusCode).toBe(404);
  });

  it('answers 400 naming every invalid field', async () => {
    const fieldsOf = async (payload: unknown): Promise<string[]> => {
      const res = await app.inject({ method: 'POST', url: '/v1/alert-rules', headers: auth, payload: payload as object });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      return (res.json().errors as { field: string }[]).map((e) => e.field).sort();
    };
    expect(await fieldsOf({})).toEqual(['comparator', 'metric', 'threshold', 'window_minutes']);
    expect(await fieldsOf({ metric: 'ctr', comparator: 'over', threshold: -1, window_minutes: 0, publisher_id: 5 })).toEqual([
      'comparator',
      'metric',
      'publisher_id',
      'threshold',
      'window_minutes',
    ]);
    expect(await fieldsOf({ metric: 'fill_rate', comparator: 'below', threshold: 1.5, window_minutes: 10 })).toEqual(['threshold']);
    expect(await fieldsOf({ metric: 'revenue', comparator: 'below', threshold: 1, window_minutes: 10_081 })).toEqual(['window_minutes']);
    expect(await fieldsOf({ metric: 'revenue', comparator: 'below', threshold: 1, window_minutes: 10, publisher_id: 'pub_none' })).toEqual(['publisher_id']);
  });

  it('answers the daily report with unflushed counts, delivers it (202), and serves stats', async () => {
    h.counters.add('pub_a', { requests: 4, imps: 4, impsFilled: 2, bids: 2, wins: 1, impressions: 1, revenueGrossMicros: 2_000, revenueNetMicros: 1_500 }, DAY0 + HOUR_MS);
    const res = await app.inject({ method: 'GET', url: '/v1/reports/daily?date=2026-03-10', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      date: '2026-03-10',
      reports: [
        {
          date: '2026-03-10',
          publisher_id: 'pub_a',
          currency: 'USD',
          requests: 4,
          imps: 4,
          bids: 2,
          wins: 1,
          impressions: 1,
          fill_rate: 0.5,
          win_rate: 0.5,
          revenue_gross: 0.002,
          revenue_net: 0.0015,
          ecpm: 1.5,
        },
      ],
    });
    const other = await app.inject({ method: 'GET', url: '/v1/reports/daily?date=2026-03-10&publisher_id=pub_b', headers: auth });
    expect(other.json()).toEqual({ date: '2026-03-10', reports: [] });

    for (const url of ['/v1/reports/daily', '/v1/reports/daily?date=10-03-2026', '/v1/reports/daily?date=2026-02-30']) {
      const bad = await app.inject({ method: 'GET', url, headers: auth });
      expect(bad.statusCode, url).toBe(400);
      expect(bad.json().errors.map((e: { field: string }) => e.field), url).toEqual(['date']);
    }

    const delivered = await app.inject({ method: 'POST', url: '/v1/reports/daily/deliver', headers: auth, payload: { date: '2026-03-10' } });
    expect(delivered.statusCode).toBe(202);
    expect(delivered.json()).toEqual({ date: '2026-03-10', events: 1, messages: 2 });
    expect((await h.outbox('report.daily')).map((r) => r.payload.revenue_net)).toEqual([0.0015, 0.0015]);
    const badDeliver = await app.inject({ method: 'POST', url: '/v1/reports/daily/deliver', headers: auth, payload: {} });
    expect(badDeliver.statusCode).toBe(400);
    expect(badDeliver.json().errors).toEqual([expect.objectContaining({ field: 'date' })]);

    const stats = await app.inject({ method: 'GET', url: '/v1/stats', headers: auth });
    expect(stats.statusCode).toBe(200);
    expect(stats.json().last_minute).toMatchObject({ requests: 1, imps: 1, fill_rate: 1, latency_ms: { p50: 12, p99: 12 } });
    expect(Object.keys(stats.json())).toEqual(['timestamp', 'started_at', 'last_minute', 'last_hour', 'totals']);
  });
});
