import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createDemandPartnerService } from '../../src/admin/demand-partners.js';
import { createPublisherService } from '../../src/admin/publishers.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import { adminRoutes } from '../../src/http/admin/index.js';
import { installProblemHandlers } from '../../src/http/problem.js';
import type { Store } from '../../src/storage/ports.js';

describe('admin route schemas in the OpenAPI document', () => {
  it('lists every route with its tags and schemas', async () => {
    const app = Fastify({ ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } } });
    installProblemHandlers(app);
    await app.register(swagger, { openapi: { info: { title: 'adx', version: '0' } } });
    // Building the document touches no store: an empty stand-in is enough here.
    const store = {} as Store;
    const deps = { store, clock: new ManualClock(), ids: createSequentialIds() };
    await app.register(adminRoutes, {
      publishers: createPublisherService({ ...deps, keyRotationGraceSeconds: 60 }),
      demandPartners: createDemandPartnerService({ ...deps, adapterCodes: ['openrtb25'] }),
      adminKey: 'k',
    });
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/demand-partners',
      '/v1/demand-partners/{id}',
      '/v1/publishers',
      '/v1/publishers/{id}',
      '/v1/publishers/{id}/keys',
    ]);
    expect(Object.keys(doc.paths['/v1/publishers/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    const createPublisher = doc.paths['/v1/publishers']!.post;
    expect(createPublisher.tags).toEqual(['publishers']);
    expect(createPublisher.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(Object.keys(createPublisher.responses['201'].content['application/json'].schema.properties)).toContain('api_key');
    const createPartner = doc.paths['/v1/demand-partners']!.post;
    expect(createPartner.requestBody.content['application/json'].schema.properties.currency.pattern).toBe('^[A-Z]{3}$');
    expect(doc.paths['/v1/demand-partners/{id}']!.delete.responses).toHaveProperty('204');
    await app.close();
  });
});
