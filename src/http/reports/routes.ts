/**
 * Report and stats routes (DESIGN section 7), behind the admin Bearer key:
 * - `GET /v1/reports/daily?date=YYYY-MM-DD[&publisher_id=]` answers `{date, reports: [...]}`: one
 *   object per publisher with activity that UTC day, with the fields of the `report.daily` event
 *   minus `event` and `timestamp` (which describe a delivery, not the numbers); counts not yet
 *   flushed included; a day not over yet answers its counts so far.
 * - `POST /v1/reports/daily/deliver {date}` sends that day's `report.daily` events now (again, or
 *   for the first time for today so far) and answers 202 `{date, events, messages}`: reports built,
 *   outbox rows queued (one per subscribed endpoint per report).
 * - `GET /v1/stats`: this node's live stats (`reporting/live-stats.ts`).
 * Register it without `fastify-plugin`, so its auth hook stays encapsulated:
 *
 * ```ts
 * await app.register(reportRoutes, { scheduler, stats, adminKey: config.security.adminKey });
 * ```
 */
import type { FastifyPluginAsync } from 'fastify';
// Type-only: brings @fastify/swagger's FastifySchema additions (tags, summary) into scope.
import type {} from '@fastify/swagger';
import { Type, type Static } from '@sinclair/typebox';
import { fromMicros } from '../../domain/money.js';
import { EXCHANGE_CURRENCY } from '../../events/payloads.js';
import type { DailyReport } from '../../reporting/daily-report.js';
import type { LiveStats } from '../../reporting/live-stats.js';
import type { ReportScheduler } from '../../reporting/report-scheduler.js';
import { createAdminAuthHook } from '../admin/auth.js';
import { adminErrorResponses } from '../admin/schemas.js';

const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UTC day, YYYY-MM-DD' });

/** One publisher's day, as `GET /v1/reports/daily` answers it (the report.daily fields but `event`, `timestamp`). */
export const DailyReportJson = Type.Object({
  date: DateString,
  publisher_id: Type.String(),
  currency: Type.String({ description: 'The exchange currency (USD)' }),
  requests: Type.Integer({ description: 'Authenticated requests that passed validation' }),
  imps: Type.Integer({ description: 'Their imps' }),
  bids: Type.Integer({ description: 'Bids the exchange returned' }),
  wins: Type.Integer({ description: 'Accepted win notices' }),
  impressions: Type.Integer({ description: 'Billable impressions (first of billing notice or pixel, once per bid)' }),
  fill_rate: Type.Number({ description: 'Imps that got a bid / imps; 0 without imps' }),
  win_rate: Type.Number({ description: 'Wins / bids; 0 without bids' }),
  revenue_gross: Type.Number({ description: 'What partners pay, decimal USD amount' }),
  revenue_net: Type.Number({ description: 'What the publisher is paid, decimal USD amount' }),
  ecpm: Type.Number({ description: 'Net revenue x 1000 / impressions, USD CPM; 0 without impressions' }),
});
/** Static type of {@link DailyReportJson}. */
export type DailyReportJson = Static<typeof DailyReportJson>;

/** The API's JSON for a report. */
export function toDailyReportJson(report: DailyReport): DailyReportJson {
  return {
    date: report.date,
    publisher_id: report.publisherId,
    currency: EXCHANGE_CURRENCY,
    requests: report.requests,
    imps: report.imps,
    bids: report.bids,
    wins: report.wins,
    impressions: report.impressions,
    fill_rate: report.fillRate,
    win_rate: report.winRate,
    revenue_gross: fromMicros(report.revenueGrossMicros),
    revenue_net: fromMicros(report.revenueNetMicros),
    ecpm: fromMicros(report.ecpmMicros),
  };
}

const DailyQuery = Type.Object({ date: DateString, publisher_id: Type.Optional(Type.String({ minLength: 1, description: 'Only this publisher' })) });
type DailyQuery = Static<typeof DailyQuery>;
const DeliverBody = Type.Object({ date: DateString }, { additionalProperties: true });
type DeliverBody = Static<typeof DeliverBody>;

const PartnerStats = Type.Object({ calls: Type.Integer(), timeouts: Type.Integer(), errors: Type.Integer(), skipped: Type.Integer() });
const StatsWindow = Type.Object({
  window_seconds: Type.Number(),
  requests: Type.Integer(),
  requests_per_second: Type.Number(),
  imps: Type.Integer(),
  fill_rate: Type.Number(),
  bids: Type.Integer(),
  wins: Type.Integer(),
  win_rate: Type.Number(),
  impressions: Type.Integer(),
  revenue_net: Type.Number({ description: 'Decimal USD amount' }),
  latency_ms: Type.Object({ p50: Type.Number(), p99: Type.Number() }),
  partners: Type.Record(Type.String(), PartnerStats, { description: 'Per demand partner id' }),
});
/** `GET /v1/stats` answer. */
export const StatsJson = Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  started_at: Type.String({ format: 'date-time' }),
  last_minute: StatsWindow,
  last_hour: StatsWindow,
  totals: StatsWindow,
});

/** What {@link reportRoutes} needs. */
export interface ReportRouteOptions {
  scheduler: Pick<ReportScheduler, 'report' | 'deliver'>;
  stats: Pick<LiveStats, 'snapshot'>;
  /** `ADX_ADMIN_KEY`; an empty string refuses every call (401). */
  adminKey: string;
}

const { 400: badRequest, 401: unauthorized } = adminErrorResponses;

/** Registers the report and stats routes behind the admin key (see the module comment). */
export const reportRoutes: FastifyPluginAsync<ReportRouteOptions> = async (app, { scheduler, stats, adminKey }) => {
  app.addHook('onRequest', createAdminAuthHook(adminKey));

  app.get<{ Querystring: DailyQuery }>(
    '/v1/reports/daily',
    {
      schema: {
        tags: ['reports'],
        summary: "A UTC day's report per publisher (counts not yet flushed included)",
        querystring: DailyQuery,
        response: { 200: Type.Object({ date: DateString, reports: Type.Array(DailyReportJson) }), 400: badRequest, 401: unauthorized },
      },
    },
    async (request) => {
      const { date, publisher_id: publisherId } = request.query;
      const reports = await scheduler.report(date, publisherId);
      return { date, reports: reports.map(toDailyReportJson) };
    },
  );

  app.post<{ Body: DeliverBody }>(
    '/v1/reports/daily/deliver',
    {
      schema: {
        tags: ['reports'],
        summary: "Send a day's report.daily events now (again, or today's so far)",
        body: DeliverBody,
        response: {
          202: Type.Object({
            date: DateString,
            events: Type.Integer({ description: 'Reports built (publishers with activity)' }),
            messages: Type.Integer({ description: 'Outbox messages queued (one per subscribed endpoint per report)' }),
          }),
          400: badRequest,
          401: unauthorized,
        },
      },
    },
    async (request, reply) => {
      const { date } = request.body;
      const { events, messages } = await scheduler.deliver(date);
      return reply.code(202).send({ date, events, messages });
    },
  );

  app.get(
    '/v1/stats',
    { schema: { tags: ['stats'], summary: "This node's live counters and rates (last minute, last hour, since start)", response: { 200: StatsJson, 401: unauthorized } } },
    async () => stats.snapshot(),
  );
};
