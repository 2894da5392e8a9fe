/**
 * Statistics read from the store, behind the admin Bearer key:
 * - `GET /v1/stats/webhooks`: each webhook endpoint's messages by status (pending, delivered,
 *   failed), one grouped count of the outbox, for the console's webhook table (DESIGN section 12);
 * - `GET /v1/stats/series?from=<ISO 8601>&to=<ISO 8601>&step=minute|hour|day[&publisher_id=][&partner_id=]`
 *   (DESIGN section 7): per-bucket counts, rates and latency
 * percentiles summed over every node from the store (`reporting/stats-series.ts`). `from` and `to`
 * must carry a time zone (`Z` or an offset) so a bucket is never read in the server's local time;
 * buckets overlapping `[from, to)` are answered and the answer's `from`/`to` are their aligned
 * bounds. `partner_id` answers that demand partner's series (partner counters are not kept per
 * publisher, so it does not combine with `publisher_id`). Register it without `fastify-plugin`:
 *
 * ```ts
 * await app.register(statsSeriesRoutes, { store, adminKey: config.security.adminKey });
 * ```
 */
import type { FastifyPluginAsync } from 'fastify';
import type {} from '@fastify/swagger';
import { Type, type Static } from '@sinclair/typebox';
import { AdxError, type FieldError } from '../../domain/errors.js';
import { exchangeSeries, partnerSeries, type SeriesStep } from '../../reporting/stats-series.js';
import type { OutboxStore, SeriesStore } from '../../storage/ports.js';
import { createAdminAuthHook } from '../admin/auth.js';
import { adminErrorResponses } from '../admin/schemas.js';

/** ISO 8601 date-time with a time zone, e.g. `2026-03-10T00:00:00Z` or `2026-03-10T01:00:00+01:00`. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const SeriesQueryJson = Type.Object({
  from: Type.String({ description: 'Range start, ISO 8601 with Z or an offset' }),
  to: Type.String({ description: 'Range end (exclusive), ISO 8601 with Z or an offset' }),
  step: Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day')], { description: 'Bucket width, UTC' }),
  publisher_id: Type.Optional(Type.String({ minLength: 1, description: 'Only this publisher' })),
  partner_id: Type.Optional(Type.String({ minLength: 1, description: "This demand partner's series instead" })),
});
type SeriesQueryJson = Static<typeof SeriesQueryJson>;

const Latency = {
  latency_p50_ms: Type.Number({ description: 'Median latency, ms (upper bound of its histogram bucket; 0 without traffic)' }),
  latency_p99_ms: Type.Number({ description: '99th percentile latency, ms' }),
};
const ExchangePointJson = Type.Object({
  t: Type.String({ format: 'date-time', description: 'Bucket start, UTC' }),
  requests: Type.Integer(),
  imps: Type.Integer(),
  imps_filled: Type.Integer({ description: 'Imps that got a bid' }),
  bids: Type.Integer({ description: 'Bids the exchange returned' }),
  wins: Type.Integer(),
  impressions: Type.Integer(),
  revenue_gross: Type.Number({ description: 'Decimal USD amount' }),
  revenue_net: Type.Number({ description: 'Decimal USD amount' }),
  fill_rate: Type.Number(),
  win_rate: Type.Number(),
  ecpm: Type.Number({ description: 'Net revenue x 1000 / impressions, USD CPM' }),
  ...Latency,
});
const PartnerPointJson = Type.Object({
  t: Type.String({ format: 'date-time', description: 'Bucket start, UTC' }),
  calls: Type.Integer({ description: 'Calls made' }),
  bids: Type.Integer({ description: 'Bids taken into the auction' }),
  timeouts: Type.Integer(),
  errors: Type.Integer(),
  wins: Type.Integer({ description: 'Accepted win notices' }),
  privacy_blocked: Type.Integer({ description: 'Calls blocked or stripped by the privacy rules' }),
  ...Latency,
});
/** `GET /v1/stats/series` answer: the exchange's points, or a partner's with `partner_id`. */
export const SeriesJson = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  step: Type.String(),
  points: Type.Union([Type.Array(ExchangePointJson), Type.Array(PartnerPointJson)]),
});

/** What {@link statsSeriesRoutes} needs. */
export interface StatsSeriesRouteOptions {
  store: { series: SeriesStore; outbox: Pick<OutboxStore, 'statusCounts'> };
  /** `ADX_ADMIN_KEY`; an empty string refuses every call (401). */
  adminKey: string;
}

/** `GET /v1/stats/webhooks` answer. */
export const WebhookStatsJson = Type.Object({
  data: Type.Array(
    Type.Object({
      endpoint_id: Type.String(),
      pending: Type.Integer({ description: 'Waiting for their first or next attempt' }),
      delivered: Type.Integer({ description: 'Answered 2xx' }),
      failed: Type.Integer({ description: 'Attempts exhausted (or endpoint gone); out again only by replay or recover' }),
    }),
    { description: 'One entry per endpoint with messages, by endpoint id' },
  ),
});

/** ms since the epoch of an ISO 8601 date-time with a zone, or undefined. */
function parseInstant(value: string): number | undefined {
  if (!ISO_WITH_ZONE.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

const { 400: badRequest, 401: unauthorized } = adminErrorResponses;

/** Registers `GET /v1/stats/series` behind the admin key (see the module comment). */
export const statsSeriesRoutes: FastifyPluginAsync<StatsSeriesRouteOptions> = async (app, { store, adminKey }) => {
  app.addHook('onRequest', createAdminAuthHook(adminKey));

  app.get(
    '/v1/stats/webhooks',
    { schema: { tags: ['stats'], summary: "Each webhook endpoint's messages by status", response: { 200: WebhookStatsJson, 401: unauthorized } } },
    async () => ({
      data: (await store.outbox.statusCounts()).map((c) => ({ endpoint_id: c.endpointId, pending: c.pending, delivered: c.delivered, failed: c.failed })),
    }),
  );

  app.get<{ Querystring: SeriesQueryJson }>(
    '/v1/stats/series',
    {
      schema: {
        tags: ['stats'],
        summary: 'Per-minute, hour or day series from the store, summed over every node; empty buckets are zeros',
        querystring: SeriesQueryJson,
        response: { 200: SeriesJson, 400: badRequest, 401: unauthorized },
      },
    },
    async (request) => {
      const { from, to, step, publisher_id: publisherId, partner_id: partnerId } = request.query;
      const errors: FieldError[] = [];
      const fromMs = parseInstant(from);
      const toMs = parseInstant(to);
      if (fromMs === undefined) errors.push({ field: 'from', message: 'must be an ISO 8601 date-time with Z or an offset' });
      if (toMs === undefined) errors.push({ field: 'to', message: 'must be an ISO 8601 date-time with Z or an offset' });
      if (partnerId !== undefined && publisherId !== undefined) {
        errors.push({ field: 'partner_id', message: 'cannot be combined with publisher_id (partner counters are not kept per publisher)' });
      }
      if (errors.length > 0) throw new AdxError('invalid_request', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
      const query = { fromMs: fromMs!, toMs: toMs!, step: step as SeriesStep };
      return partnerId !== undefined ? partnerSeries(store, { ...query, partnerId }) : exchangeSeries(store, { ...query, publisherId });
    },
  );
};
