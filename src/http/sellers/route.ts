/**
 * `GET /sellers.json` (DESIGN sections 7 and 11): the exchange's IAB sellers.json 1.0, public (no
 * key), `application/json`. Built from the store on each call (not on the bid path; a change to
 * a publisher shows at once).
 */
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type { PublisherStore } from '../../storage/ports.js';
import { buildSellersJson } from '../../supply-chain/sellers-json.js';

/** Registers `GET /sellers.json`. */
export async function sellersJsonRoutes(app: FastifyInstance, options: { publishers: Pick<PublisherStore, 'list'>; contactEmail: string; contactAddress: string }): Promise<void> {
  app.get(
    '/sellers.json',
    { schema: { tags: ['supply-chain'], summary: 'IAB sellers.json 1.0: one seller per publisher, seller_id = the schain sid', security: [] } },
    async (_request, reply) => {
      const publishers = await options.publishers.list();
      reply.header('content-type', 'application/json; charset=utf-8');
      return buildSellersJson(publishers, { email: options.contactEmail, address: options.contactAddress });
    },
  );
}
