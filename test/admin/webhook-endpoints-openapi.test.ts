import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { WebhookEndpointService } from '../../src/admin/webhook-endpoints.js';
import { webhookEndpointRoutes } from '../../src/http/admin/webhook-endpoints.js';
import { installProblemHandlers } from '../../src/http/problem.js';

describe('webhook endpoint routes in the OpenAPI document', () => {
  it('lists every route with its tag and schemas', async () => {
    const app = Fastify({ ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } } });
    installProblemHandlers(app);
    await app.register(swagger, { openapi: { info: { title: 'adx', version: '0' } } });
    // Building the document calls no service method.
    await app.register(webhookEndpointRoutes, { service: {} as WebhookEndpointService, adminKey: 'k' });
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/webhook-endpoints',
      '/v1/webhook-endpoints/{id}',
      '/v1/webhook-endpoints/{id}/deliveries',
      '/v1/webhook-endpoints/{id}/deliveries/{msg}/replay',
      '/v1/webhook-endpoints/{id}/recover',
      '/v1/webhook-endpoints/{id}/rotate-secret',
      '/v1/webhook-endpoints/{id}/test',
    ]);
    expect(Object.keys(doc.paths['/v1/webhook-endpoints/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    const create = doc.paths['/v1/webhook-endpoints']!.post;
    expect(create.tags).toEqual(['webhook-endpoints']);
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['url']);
    expect(Object.keys(create.responses['201'].content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['secret', 'api_key', 'disabled_reason']),
    );
    const get = doc.paths['/v1/webhook-endpoints/{id}']!.get;
    expect(Object.keys(get.responses['200'].content['application/json'].schema.properties)).not.toContain('secret');
    expect(doc.paths['/v1/webhook-endpoints/{id}/test']!.post.responses).toHaveProperty('409');
    await app.close();
  });
});
