/**
 * Shedding in front of fastify (issue 15). Under 2x saturation most bid requests are shed, and a
 * shed answer that goes through fastify (routing, the CORS and shed hooks, the reply, the content
 * parser draining the body) cost about 50 us of the one core: as much as the baseline's whole bid
 * request, so shedding itself filled the event loop and made the admitted requests late. The gate
 * answers a shed bid request on the raw `node:http` request, before fastify sees it: the same
 * 204, the same `x-openrtb-version` and CORS headers (`cors.ts`), the same `adx_requests_shed_total`
 * count. Everything else, and every request the shedder admits, goes to fastify unchanged; the
 * bid route keeps its own check for requests that do not come through this server (`inject`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import { corsHeadersFor } from '../cors.js';
import type { LoadShedder } from './overload.js';

/** Dependencies of `shedGateServerFactory`. */
export interface ShedGateDeps {
  /** The bid endpoint's path (DESIGN section 2); only `POST` to it (with or without a query) is gated. */
  path: string;
  shedder: Pick<LoadShedder, 'shouldShed'>;
  /** Counts one shed request by reason (`adx_requests_shed_total`). */
  onShed(reason: NonNullable<ReturnType<LoadShedder['shouldShed']>>): void;
}

/** True for `POST <path>` and `POST <path>?...`. */
function isBidRequest(request: IncomingMessage, path: string): boolean {
  if (request.method !== 'POST') return false;
  const url = request.url ?? '';
  return url === path || (url.startsWith(path) && url.charCodeAt(path.length) === 63 /* ? */);
}

/**
 * A fastify `serverFactory` (HTTP/1.1) whose request listener answers shed bid requests itself
 * and hands everything else to fastify's handler. Applies the server options fastify applies to
 * the server it makes (`keepAliveTimeout`, `requestTimeout`, `connectionTimeout`,
 * `maxRequestsPerSocket`).
 */
export function shedGateServerFactory(deps: ShedGateDeps) {
  return (handler: (request: IncomingMessage, response: ServerResponse) => void, options: FastifyServerOptions): Server => {
    const server = createServer((request, response) => {
      if (isBidRequest(request, deps.path)) {
        const reason = deps.shedder.shouldShed();
        if (reason !== undefined) {
          deps.onShed(reason);
          const headers = { 'x-openrtb-version': '2.5', ...corsHeadersFor(request.headers.origin) };
          // The body is read and dropped so the keep-alive connection stays usable.
          request.resume();
          response.writeHead(204, headers).end();
          return;
        }
      }
      handler(request, response);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout ?? 0);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}
