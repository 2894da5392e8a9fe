/**
 * `/v1/alert-rules` routes (DESIGN section 7): create (201 with the whole rule), list, get and
 * delete (204), behind the admin Bearer key. Thin: the service validates and stores. A rule's JSON
 * carries its current `state` (`idle`, `triggered`, `resolved`) and `alert_id` besides the fields
 * DESIGN lists. Register it without `fastify-plugin`, so its auth hook stays encapsulated:
 *
 * ```ts
 * await app.register(alertRuleRoutes, { service, adminKey: config.security.adminKey });
 * ```
 */
import type { FastifyPluginAsync } from 'fastify';
// Type-only: brings @fastify/swagger's FastifySchema additions (tags, summary) into scope.
import type {} from '@fastify/swagger';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { thresholdForJson, type AlertRuleService, type AlertRuleView } from '../../admin/alert-rules.js';
import { createAdminAuthHook } from './auth.js';
import { IdParams, NoContent, adminErrorResponses } from './schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });

const ruleFields = {
  metric: Type.String({ enum: ['revenue', 'fill_rate'], description: 'revenue: net revenue over the window; fill_rate: imps that got a bid / imps' }),
  comparator: Type.String({ enum: ['above', 'below'], description: 'above: holds when value > threshold; below: when value < threshold' }),
  threshold: Type.Number({ minimum: 0, description: 'A USD amount (revenue) or a rate from 0 to 1 (fill_rate)' }),
  window_minutes: Type.Integer({ minimum: 1, description: 'Sliding window: the last N UTC minute buckets, the current one included' }),
  publisher_id: Nullable(Type.String({ minLength: 1, description: 'Scope: one publisher; null (default) = the whole exchange' })),
};

/** `POST /v1/alert-rules` body. */
export const AlertRuleCreateBody = Type.Object(
  {
    metric: ruleFields.metric,
    comparator: ruleFields.comparator,
    threshold: ruleFields.threshold,
    window_minutes: ruleFields.window_minutes,
    publisher_id: Type.Optional(ruleFields.publisher_id),
  },
  { additionalProperties: true },
);
/** Static type of {@link AlertRuleCreateBody}. */
export type AlertRuleCreateBody = Static<typeof AlertRuleCreateBody>;

/** A rule as the admin API answers it. */
export const AlertRule = Type.Object({
  id: Type.String({ description: 'Exchange-generated id (rule_...)' }),
  ...ruleFields,
  state: Type.String({ enum: ['idle', 'triggered', 'resolved'], description: 'Current state; idle until the rule first holds' }),
  alert_id: Nullable(Type.String({ description: 'The current episode (alert_id of its alert.threshold events); null while idle' })),
  created_at: Type.String({ format: 'date-time', description: 'Creation time' }),
});
/** Static type of {@link AlertRule}. */
export type AlertRule = Static<typeof AlertRule>;

/** The admin API's JSON for a rule and its state. */
export function toAlertRuleJson({ rule, state, alertId }: AlertRuleView): AlertRule {
  return {
    id: rule.id,
    metric: rule.metric,
    comparator: rule.comparator,
    threshold: thresholdForJson(rule),
    window_minutes: rule.windowMinutes,
    publisher_id: rule.publisherId,
    state,
    alert_id: alertId,
    created_at: new Date(rule.createdAtMs).toISOString(),
  };
}

/** What {@link alertRuleRoutes} needs. */
export interface AlertRuleRouteOptions {
  service: AlertRuleService;
  /** `ADX_ADMIN_KEY`; an empty string refuses every call (401). */
  adminKey: string;
}

const tags = ['alert-rules'];
const { 400: badRequest, 401: unauthorized, 404: notFound } = adminErrorResponses;

/**
 * Registers `POST/GET /v1/alert-rules` and `GET/DELETE /v1/alert-rules/:id` behind the admin key.
 * Errors are thrown as `AdxError` and rendered by the app's problem handlers (src/http/problem.ts).
 */
export const alertRuleRoutes: FastifyPluginAsync<AlertRuleRouteOptions> = async (app, { service, adminKey }) => {
  app.addHook('onRequest', createAdminAuthHook(adminKey));

  app.post<{ Body: AlertRuleCreateBody }>(
    '/v1/alert-rules',
    {
      schema: {
        tags,
        summary: 'Create an alert rule on revenue or fill rate (alert.threshold events)',
        body: AlertRuleCreateBody,
        response: { 201: AlertRule, 400: badRequest, 401: unauthorized },
      },
    },
    async (request, reply) => reply.code(201).send(toAlertRuleJson(await service.create(request.body))),
  );

  app.get(
    '/v1/alert-rules',
    { schema: { tags, summary: 'List alert rules with their state', response: { 200: Type.Object({ data: Type.Array(AlertRule) }), 401: unauthorized } } },
    async () => ({ data: (await service.list()).map(toAlertRuleJson) }),
  );

  app.get<{ Params: IdParams }>(
    '/v1/alert-rules/:id',
    { schema: { tags, summary: 'Get an alert rule and its state', params: IdParams, response: { 200: AlertRule, 401: unauthorized, 404: notFound } } },
    async (request) => toAlertRuleJson(await service.get(request.params.id)),
  );

  app.delete<{ Params: IdParams }>(
    '/v1/alert-rules/:id',
    { schema: { tags, summary: 'Delete an alert rule and its state', params: IdParams, response: { 204: NoContent, 401: unauthorized, 404: notFound } } },
    async (request, reply) => {
      await service.delete(request.params.id);
      return reply.code(204).send();
    },
  );
};
