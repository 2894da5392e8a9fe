/**
 * The admin API plugin for publishers and demand partners (DESIGN section 7). Register it
 * without `fastify-plugin` so its auth hook stays encapsulated to these routes:
 *
 * ```ts
 * installProblemHandlers(app);
 * await app.register(swagger, ...); // before, so the routes' schemas reach /v1/openapi.json
 * await app.register(adminRoutes, { publishers, demandPartners, adminKey: config.security.adminKey });
 * ```
 *
 * The app is expected to build fastify with `ajv.customOptions` `{ coerceTypes: false,
 * removeAdditional: false, allErrors: true }`: no type coercion, unknown body fields kept (and
 * ignored by the services), every invalid field reported at once.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DemandPartnerService } from '../../admin/demand-partners.js';
import type { PublisherService } from '../../admin/publishers.js';
import { createAdminAuthHook } from './auth.js';
import { registerDemandPartnerRoutes } from './demand-partners.js';
import { registerPublisherRoutes } from './publishers.js';

/** What the admin plugin needs. */
export interface AdminRouteOptions {
  publishers: PublisherService;
  demandPartners: DemandPartnerService;
  /** `ADX_ADMIN_KEY`; an empty string refuses every call (401). */
  adminKey: string;
}

/**
 * Registers `POST/GET /v1/publishers`, `GET/PATCH/DELETE /v1/publishers/:id`,
 * `POST /v1/publishers/:id/keys`, `POST/GET /v1/demand-partners` and
 * `GET/PATCH/DELETE /v1/demand-partners/:id`, all behind the admin Bearer key. Errors are thrown
 * as `AdxError` and rendered by the app's problem handlers (src/http/problem.ts).
 */
export const adminRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  app.addHook('onRequest', createAdminAuthHook(options.adminKey));
  registerPublisherRoutes(app, options.publishers);
  registerDemandPartnerRoutes(app, options.demandPartners);
};

export { createAdminAuthHook, bearerToken } from './auth.js';
export { toPublisherJson } from './publishers.js';
export { toDemandPartnerJson } from './demand-partners.js';
