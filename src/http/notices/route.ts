/**
 * Notice endpoints (DESIGN section 3): `GET /v1/notice/win`, `/v1/notice/billing` and
 * `/v1/notice/impression`, each with `t` (the signed token) and, for win and billing, `price`
 * (the net CPM the supply side substituted for `${AUCTION_PRICE}`). Every accepted notice, first
 * or repeat, answers 200 with a 1x1 transparent GIF (so any of them can be fired as a pixel);
 * a forged token 403, an expired one 410.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AdxError } from '../../domain/errors.js';
import type { NoticeKindParam, NoticeService } from '../../notices/notice-service.js';
import type { Metrics } from '../../observability/metrics.js';

/** The 1x1 transparent GIF answered by notice endpoints (43 bytes). */
export const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const NoticeQuery = Type.Object(
  {
    t: Type.String({ minLength: 1, description: 'Signed notice token from the bid' }),
    price: Type.Optional(Type.String({ description: 'Net CPM substituted for ${AUCTION_PRICE}, in the response currency' })),
  },
  { additionalProperties: true },
);

/** Registers the three notice routes. */
export async function noticeRoutes(app: FastifyInstance, options: { notices: NoticeService; metrics: Metrics }): Promise<void> {
  const kinds: NoticeKindParam[] = ['win', 'billing', 'impression'];
  for (const kind of kinds) {
    app.get(
      `/v1/notice/${kind}`,
      { schema: { querystring: NoticeQuery, tags: ['notices'], summary: `${kind} notice (pixel answer)` } },
      async (request, reply) => {
        const started = performance.now();
        const query = request.query as { t: string; price?: string };
        const outcome = await options.notices.handle(kind, query.t, query.price);
        options.metrics.requestTime.observe({ type: `notice_${kind}` }, (performance.now() - started) / 1000);
        if (outcome.status === 'expired') throw new AdxError('expired_token', 'the notice token has expired');
        if (outcome.status !== 'ok') throw new AdxError('forged_token', 'the notice token is not valid');
        return reply.code(200).header('cache-control', 'no-store').type('image/gif').send(TRANSPARENT_GIF);
      },
    );
  }
}
