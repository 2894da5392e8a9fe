/**
 * `/v1/demand-partners` routes (DESIGN section 7): create (201), list, get, patch, delete (204).
 * Thin: the service validates, applies defaults and stores.
 */
import type { FastifyInstance } from 'fastify';
// Type-only: brings @fastify/swagger's FastifySchema additions (tags, summary) into scope.
import type {} from '@fastify/swagger';
import type { DemandPartnerService } from '../../admin/demand-partners.js';
import type { DemandPartnerRecord } from '../../storage/ports.js';
import {
  DemandPartner,
  DemandPartnerCreateBody,
  DemandPartnerList,
  DemandPartnerPatchBody,
  IdParams,
  NoContent,
  adminErrorResponses,
} from './schemas.js';

const tags = ['demand-partners'];
const { 400: badRequest, 401: unauthorized, 404: notFound } = adminErrorResponses;

/** The admin API's JSON for a demand partner record (snake_case, ISO 8601 UTC times). */
export function toDemandPartnerJson(record: DemandPartnerRecord): DemandPartner {
  return {
    id: record.id,
    name: record.name,
    endpoint: record.endpoint,
    adapter: record.adapter,
    timeout_ms: record.timeoutMs,
    gzip: record.gzip,
    qps_limit: record.qpsLimit,
    currency: record.currency,
    enabled: record.enabled,
    openrtb_version: record.openrtbVersion,
    gvl_vendor_id: record.gvlVendorId,
    media_types: record.mediaTypes,
    created_at: new Date(record.createdAtMs).toISOString(),
    updated_at: new Date(record.updatedAtMs).toISOString(),
  };
}

/** Registers the demand partner routes on `app` (inside the admin plugin, behind its auth hook). */
export function registerDemandPartnerRoutes(app: FastifyInstance, demandPartners: DemandPartnerService): void {
  app.post<{ Body: DemandPartnerCreateBody }>(
    '/v1/demand-partners',
    {
      schema: {
        tags,
        summary: 'Create a demand partner (absent fields take their defaults)',
        body: DemandPartnerCreateBody,
        response: { 201: DemandPartner, 400: badRequest, 401: unauthorized },
      },
    },
    async (request, reply) => reply.code(201).send(toDemandPartnerJson(await demandPartners.create(request.body))),
  );

  app.get(
    '/v1/demand-partners',
    { schema: { tags, summary: 'List demand partners', response: { 200: DemandPartnerList, 401: unauthorized } } },
    async () => ({ data: (await demandPartners.list()).map(toDemandPartnerJson) }),
  );

  app.get<{ Params: IdParams }>(
    '/v1/demand-partners/:id',
    {
      schema: { tags, summary: 'Get a demand partner', params: IdParams, response: { 200: DemandPartner, 401: unauthorized, 404: notFound } },
    },
    async (request) => toDemandPartnerJson(await demandPartners.get(request.params.id)),
  );

  app.patch<{ Params: IdParams; Body: DemandPartnerPatchBody }>(
    '/v1/demand-partners/:id',
    {
      schema: {
        tags,
        summary: 'Change some fields of a demand partner',
        params: IdParams,
        body: DemandPartnerPatchBody,
        response: { 200: DemandPartner, 400: badRequest, 401: unauthorized, 404: notFound },
      },
    },
    async (request) => toDemandPartnerJson(await demandPartners.update(request.params.id, request.body)),
  );

  app.delete<{ Params: IdParams }>(
    '/v1/demand-partners/:id',
    {
      schema: {
        tags,
        summary: 'Delete a demand partner',
        params: IdParams,
        response: { 204: NoContent, 401: unauthorized, 404: notFound },
      },
    },
    async (request, reply) => {
      await demandPartners.delete(request.params.id);
      return reply.code(204).send();
    },
  );
}
