/**
 * `/v1/webhook-endpoints` routes (DESIGN sections 6 and 7): create (201, with `secret` and
 * `api_key` shown once), list, get, patch, delete (204), rotate-secret (200 `{secret}`), test
 * (202 `{message_id}`), the delivery log, replay (202) and recover (200 `{recovered}`), all behind
 * the admin Bearer key. Thin: the service validates and stores. JSON is snake_case; times are
 * ISO 8601 UTC. Register it like the admin plugin, without `fastify-plugin`, so its auth hook stays
 * encapsulated:
 *
 * ```ts
 * await app.register(webhookEndpointRoutes, { service, adminKey: config.security.adminKey });
 * ```
 */
import type { FastifyPluginAsync } from 'fastify';
// Type-only: brings @fastify/swagger's FastifySchema additions (tags, summary) into scope.
import type {} from '@fastify/swagger';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { DeliveryLogEntry, WebhookEndpointService } from '../../admin/webhook-endpoints.js';
import { AdxError } from '../../domain/errors.js';
import { EVENT_KINDS } from '../../events/types.js';
import type { WebhookEndpointRecord } from '../../storage/ports.js';
import { createAdminAuthHook } from './auth.js';
import { IdParams, NoContent, Problem, adminErrorResponses } from './schemas.js';

/** `T` or null, as `nullable: true` (OpenAPI 3.0), like the other admin schemas. */
const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const NullableTimestamp = (description: string) => Nullable(Timestamp(description));

const endpointFields = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'Base URL; deliveries go to <url>/webhooks/<kind with . as ->. https and a public host unless the operator allows private targets' }),
  events: Type.Array(Type.String({ enum: [...EVENT_KINDS] }), { description: 'Subscribed event kinds; [] (default) = every kind' }),
  publisher_id: Nullable(Type.String({ minLength: 1, description: 'Scope: only this publisher\'s events; null (default) = all' })),
  enabled: Type.Boolean({ description: 'Default true; false once the exchange disabled it (410, or failing for 5 days)' }),
  description: Nullable(Type.String({ maxLength: 500, description: 'Free text for operators' })),
};
const apiKeyField = Type.String({ minLength: 1, maxLength: 512, description: 'Sent as Authorization: Bearer <api_key> with every delivery; generated when absent' });

/** `POST /v1/webhook-endpoints` body. */
export const WebhookEndpointCreateBody = Type.Object(
  {
    url: endpointFields.url,
    events: Type.Optional(endpointFields.events),
    api_key: Type.Optional(apiKeyField),
    publisher_id: Type.Optional(endpointFields.publisher_id),
    enabled: Type.Optional(endpointFields.enabled),
    description: Type.Optional(endpointFields.description),
  },
  { additionalProperties: true },
);
/** Static type of {@link WebhookEndpointCreateBody}. */
export type WebhookEndpointCreateBody = Static<typeof WebhookEndpointCreateBody>;

/** `PATCH /v1/webhook-endpoints/{id}` body: any subset of the create fields. */
export const WebhookEndpointPatchBody = Type.Partial(WebhookEndpointCreateBody, { additionalProperties: true });
/** Static type of {@link WebhookEndpointPatchBody}. */
export type WebhookEndpointPatchBody = Static<typeof WebhookEndpointPatchBody>;

const endpointProperties = {
  id: Type.String({ description: 'Exchange-generated id (ep_...)' }),
  ...endpointFields,
  disabled_reason: Nullable(Type.String({ description: 'Why the exchange disabled it: gone (410) or failing; null when enabled or disabled by hand' })),
  created_at: Timestamp('Creation time'),
  updated_at: Timestamp('Last change'),
};

/** An endpoint as the admin API answers it (never with its secret or API key). */
export const WebhookEndpoint = Type.Object(endpointProperties);
/** Static type of {@link WebhookEndpoint}. */
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** `POST /v1/webhook-endpoints` answer: the endpoint plus its secret and API key, shown this once. */
export const WebhookEndpointCreated = Type.Object({
  ...endpointProperties,
  secret: Type.String({ description: 'Signing secret (whsec_...), Standard Webhooks; shown only in this answer' }),
  api_key: Type.String({ description: 'The Bearer key sent to the endpoint; shown only in this answer' }),
});
/** Static type of {@link WebhookEndpointCreated}. */
export type WebhookEndpointCreated = Static<typeof WebhookEndpointCreated>;

const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1-based attempt number' }),
  started_at: Timestamp('When the attempt started'),
  duration_ms: Type.Number({ description: 'How long it took, ms' }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status; null when no answer came' })),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(Type.String({ description: 'First bytes of the answer (at most 1 KiB)' })),
  next_attempt_at: NullableTimestamp('When the next attempt was scheduled; null when none followed'),
});

/** A message of the delivery log. */
export const Delivery = Type.Object({
  id: Type.String({ description: 'Message id, the webhook-id header (msg_...)' }),
  event: Type.String({ description: 'Event kind' }),
  status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  next_attempt_at: NullableTimestamp('When the next attempt is due (pending only)'),
  created_at: Timestamp('When the event was stored'),
  delivered_at: NullableTimestamp('When a 2xx came back'),
  last_error: Nullable(Type.String()),
  attempt_log: Type.Array(DeliveryAttempt),
});
/** Static type of {@link Delivery}. */
export type Delivery = Static<typeof Delivery>;

const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'] })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'At most this many messages, 1..1000 (default 100)' })),
});
const MessageParams = Type.Object({ id: Type.String({ minLength: 1 }), msg: Type.String({ minLength: 1, description: 'Message id (msg_...)' }) });
const RecoverBody = Type.Object({ since: Type.String({ minLength: 1, description: 'ISO 8601 date-time: failed messages created at or after it go out again' }) }, { additionalProperties: true });
const MessageAccepted = Type.Object({ message_id: Type.String({ description: 'The queued message (webhook-id)' }) });

const tags = ['webhook-endpoints'];
const { 400: badRequest, 401: unauthorized, 404: notFound } = adminErrorResponses;
const conflict = { ...Problem, description: 'The endpoint is disabled' };

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** The admin API's JSON for an endpoint record. Never carries the secret or the API key. */
export function toWebhookEndpointJson(record: WebhookEndpointRecord): WebhookEndpoint {
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    publisher_id: record.publisherId,
    enabled: record.enabled,
    disabled_reason: record.disabledReason,
    description: record.description,
    created_at: iso(record.createdAtMs),
    updated_at: iso(record.updatedAtMs),
  };
}

/** The admin API's JSON for a delivery log entry (`next_attempt_at` only while pending). */
export function toDeliveryJson({ message, attempts }: DeliveryLogEntry): Delivery {
  return {
    id: message.id,
    event: message.eventKind,
    status: message.status,
    attempts: message.attempts,
    next_attempt_at: message.status === 'pending' ? iso(message.nextAttemptAtMs) : null,
    created_at: iso(message.createdAtMs),
    delivered_at: isoOrNull(message.deliveredAtMs),
    last_error: message.lastError,
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: iso(a.startedAtMs),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      response_excerpt: a.responseExcerpt,
      next_attempt_at: isoOrNull(a.nextAttemptAtMs),
    })),
  };
}

/** ISO 8601 date-time with a time zone (`2026-01-01T00:00:00Z`, `...+02:00`), to ms; NaN otherwise. */
function parseIsoDateTime(text: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) return Number.NaN;
  return Date.parse(text);
}

/** What {@link webhookEndpointRoutes} needs. */
export interface WebhookEndpointRouteOptions {
  service: WebhookEndpointService;
  /** `ADX_ADMIN_KEY`; an empty string refuses every call (401). */
  adminKey: string;
}

/**
 * Registers every `/v1/webhook-endpoints` route behind the admin key. Errors are thrown as
 * `AdxError` and rendered by the app's problem handlers (src/http/problem.ts).
 */
export const webhookEndpointRoutes: FastifyPluginAsync<WebhookEndpointRouteOptions> = async (app, { service, adminKey }) => {
  app.addHook('onRequest', createAdminAuthHook(adminKey));

  app.post<{ Body: WebhookEndpointCreateBody }>(
    '/v1/webhook-endpoints',
    {
      schema: {
        tags,
        summary: 'Create a webhook endpoint; its secret and API key are answered this once',
        body: WebhookEndpointCreateBody,
        response: { 201: WebhookEndpointCreated, 400: badRequest, 401: unauthorized },
      },
    },
    async (request, reply) => {
      const { endpoint, secret, apiKey } = await service.create(request.body);
      const body: WebhookEndpointCreated = { ...toWebhookEndpointJson(endpoint), secret, api_key: apiKey };
      return reply.code(201).send(body);
    },
  );

  app.get(
    '/v1/webhook-endpoints',
    { schema: { tags, summary: 'List webhook endpoints', response: { 200: Type.Object({ data: Type.Array(WebhookEndpoint) }), 401: unauthorized } } },
    async () => ({ data: (await service.list()).map(toWebhookEndpointJson) }),
  );

  app.get<{ Params: IdParams }>(
    '/v1/webhook-endpoints/:id',
    { schema: { tags, summary: 'Get a webhook endpoint', params: IdParams, response: { 200: WebhookEndpoint, 401: unauthorized, 404: notFound } } },
    async (request) => toWebhookEndpointJson(await service.get(request.params.id)),
  );

  app.patch<{ Params: IdParams; Body: WebhookEndpointPatchBody }>(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        tags,
        summary: 'Change some fields of a webhook endpoint (enabled: true re-enables it and clears disabled_reason)',
        params: IdParams,
        body: WebhookEndpointPatchBody,
        response: { 200: WebhookEndpoint, 400: badRequest, 401: unauthorized, 404: notFound },
      },
    },
    async (request) => toWebhookEndpointJson(await service.update(request.params.id, request.body)),
  );

  app.delete<{ Params: IdParams }>(
    '/v1/webhook-endpoints/:id',
    {
      schema: { tags, summary: 'Delete a webhook endpoint with its messages', params: IdParams, response: { 204: NoContent, 401: unauthorized, 404: notFound } },
    },
    async (request, reply) => {
      await service.delete(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    '/v1/webhook-endpoints/:id/rotate-secret',
    {
      schema: {
        tags,
        summary: 'Issue a new signing secret (shown once); the old one keeps signing alongside it for 24 h',
        params: IdParams,
        response: { 200: Type.Object({ secret: Type.String({ description: 'The new secret (whsec_...)' }) }), 401: unauthorized, 404: notFound },
      },
    },
    async (request) => ({ secret: (await service.rotateSecret(request.params.id)).secret }),
  );

  app.post<{ Params: IdParams }>(
    '/v1/webhook-endpoints/:id/test',
    {
      schema: {
        tags,
        summary: 'Send a webhook.test event to this endpoint',
        params: IdParams,
        response: { 202: MessageAccepted, 401: unauthorized, 404: notFound, 409: conflict },
      },
    },
    async (request, reply) => reply.code(202).send({ message_id: (await service.test(request.params.id)).messageId }),
  );

  app.get<{ Params: IdParams; Querystring: Static<typeof DeliveriesQuery> }>(
    '/v1/webhook-endpoints/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'Messages of this endpoint, newest first, each with its attempts',
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Object({ data: Type.Array(Delivery) }), 400: badRequest, 401: unauthorized, 404: notFound },
      },
    },
    async (request) => {
      const { status, limit } = request.query;
      const entries = await service.deliveries(request.params.id, { status, limit: limit === undefined ? undefined : Number(limit) });
      return { data: entries.map(toDeliveryJson) };
    },
  );

  app.post<{ Params: Static<typeof MessageParams> }>(
    '/v1/webhook-endpoints/:id/deliveries/:msg/replay',
    {
      schema: {
        tags,
        summary: 'Send one message again (it becomes pending and due now; held while the endpoint is disabled)',
        params: MessageParams,
        response: { 202: MessageAccepted, 401: unauthorized, 404: notFound },
      },
    },
    async (request, reply) => {
      await service.replay(request.params.id, request.params.msg);
      return reply.code(202).send({ message_id: request.params.msg });
    },
  );

  app.post<{ Params: IdParams; Body: Static<typeof RecoverBody> }>(
    '/v1/webhook-endpoints/:id/recover',
    {
      schema: {
        tags,
        summary: 'Send again every failed message created since a time (held while the endpoint is disabled)',
        params: IdParams,
        body: RecoverBody,
        response: { 200: Type.Object({ recovered: Type.Integer({ description: 'Messages made pending' }) }), 400: badRequest, 401: unauthorized, 404: notFound },
      },
    },
    async (request) => {
      const sinceMs = parseIsoDateTime(request.body.since);
      if (Number.isNaN(sinceMs)) {
        throw new AdxError('invalid_request', 'invalid recover request: since must be an ISO 8601 date-time with a time zone', {
          errors: [{ field: 'since', message: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-01T00:00:00Z' }],
        });
      }
      return service.recover(request.params.id, sinceMs);
    },
  );
};
