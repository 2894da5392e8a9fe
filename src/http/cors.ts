/**
 * CORS for browser supply (DESIGN section 2, "Browser supply"): every answer to a request with an
 * `Origin`, errors included, echoes that origin with `Access-Control-Allow-Credentials: true` and
 * `Vary: Origin`. No cookies are used, so this grants nothing by itself: whether bids come back
 * depends on the publisher's `domains`. `OPTIONS` preflights answer 204 with the allowed methods
 * and headers and a max-age (Fetch standard, CORS protocol).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Headers a browser may send to the bid endpoint (Prebid.js `customHeaders` can add Authorization). */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type';
/** How long a browser may cache a preflight answer, seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * The CORS answer headers for a request's `Origin` header value (lower-case names), or undefined
 * when it has none (absent or empty): nothing to add.
 */
export function corsHeadersFor(origin: string | string[] | undefined): Record<string, string> | undefined {
  if (typeof origin !== 'string' || origin === '') return undefined;
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

/** Sets the CORS answer headers when the request has an `Origin`. */
export function applyCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const headers = corsHeadersFor(request.headers.origin);
  if (headers !== undefined) reply.headers(headers);
}

/**
 * Adds CORS to every route registered in `app` (call inside the encapsulated plugin of the
 * browser-facing routes) and a preflight route per path in `paths`.
 */
export function installCors(app: FastifyInstance, paths: string[], methods: string): void {
  // onRequest runs before any other hook of the plugin, so errors answered later carry the headers too.
  app.addHook('onRequest', async (request, reply) => {
    applyCorsHeaders(request, reply);
  });
  for (const path of paths) {
    app.options(path, { schema: { hide: true }, config: { preflight: true } }, async (_request, reply) => {
      return reply
        .code(204)
        .header('access-control-allow-methods', methods)
        .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
        .header('access-control-max-age', String(CORS_MAX_AGE_SECONDS))
        .send();
    });
  }
}
