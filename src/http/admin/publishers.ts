/**
 * `/v1/publishers` routes (DESIGN section 7): create (201, with the API key shown once), list,
 * get, patch, delete (204) and key rotation (201). Thin: the service validates and stores.
 */
import type { FastifyInstance } from 'fastify';
// Type-only: brings @fastify/swagger's FastifySchema additions (tags, summary) into scope.
import type {} from '@fastify/swagger';
import type { PublisherService } from '../../admin/publishers.js';
import { fromMicros } from '../../domain/money.js';
import type { PublisherRecord } from '../../storage/ports.js';
import {
  IdParams,
  NoContent,
  Publisher,
  PublisherCreateBody,
  PublisherCreated,
  PublisherKeyRotated,
  PublisherList,
  PublisherPatchBody,
  adminErrorResponses,
} from './schemas.js';

const tags = ['publishers'];
const { 400: badRequest, 401: unauthorized, 404: notFound } = adminErrorResponses;

/** The admin API's JSON for a publisher record (snake_case, ISO 8601 UTC times). Never carries a key. */
export function toPublisherJson(record: PublisherRecord): Publisher {
  return {
    id: record.id,
    name: record.name,
    domain: record.domain,
    domains: record.domains,
    browser_access: record.browserAccess,
    auction_type: record.auctionType,
    reserve_price: fromMicros(record.reservePriceMicros),
    seller_type: record.sellerType,
    is_confidential: record.isConfidential,
    created_at: new Date(record.createdAtMs).toISOString(),
    updated_at: new Date(record.updatedAtMs).toISOString(),
  };
}

/** Registers the publisher routes on `app` (inside the admin plugin, behind its auth hook). */
export function registerPublisherRoutes(app: FastifyInstance, publishers: PublisherService): void {
  app.post<{ Body: PublisherCreateBody }>(
    '/v1/publishers',
    {
      schema: {
        tags,
        summary: 'Create a publisher and its first API key (shown once)',
        body: PublisherCreateBody,
        response: { 201: PublisherCreated, 400: badRequest, 401: unauthorized },
      },
    },
    async (request, reply) => {
      const { publisher, apiKey } = await publishers.create(request.body);
      const body: PublisherCreated = { ...toPublisherJson(publisher), api_key: apiKey };
      return reply.code(201).send(body);
    },
  );

  app.get(
    '/v1/publishers',
    { schema: { tags, summary: 'List publishers', response: { 200: PublisherList, 401: unauthorized } } },
    async () => ({ data: (await publishers.list()).map(toPublisherJson) }),
  );

  app.get<{ Params: IdParams }>(
    '/v1/publishers/:id',
    { schema: { tags, summary: 'Get a publisher', params: IdParams, response: { 200: Publisher, 401: unauthorized, 404: notFound } } },
    async (request) => toPublisherJson(await publishers.get(request.params.id)),
  );

  app.patch<{ Params: IdParams; Body: PublisherPatchBody }>(
    '/v1/publishers/:id',
    {
      schema: {
        tags,
        summary: 'Change some fields of a publisher',
        params: IdParams,
        body: PublisherPatchBody,
        response: { 200: Publisher, 400: badRequest, 401: unauthorized, 404: notFound },
      },
    },
    async (request) => toPublisherJson(await publishers.update(request.params.id, request.body)),
  );

  app.delete<{ Params: IdParams }>(
    '/v1/publishers/:id',
    {
      schema: {
        tags,
        summary: 'Delete a publisher and its API keys',
        params: IdParams,
        response: { 204: NoContent, 401: unauthorized, 404: notFound },
      },
    },
    async (request, reply) => {
      await publishers.delete(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    '/v1/publishers/:id/keys',
    {
      schema: {
        tags,
        summary: 'Issue a new API key; the previous keys stay valid for a grace period',
        params: IdParams,
        response: { 201: PublisherKeyRotated, 401: unauthorized, 404: notFound },
      },
    },
    async (request, reply) => {
      const { apiKey, previousKeysExpireAtMs } = await publishers.rotateKey(request.params.id);
      const body: PublisherKeyRotated = { api_key: apiKey, previous_keys_expire_at: new Date(previousKeysExpireAtMs).toISOString() };
      return reply.code(201).send(body);
    },
  );
}
