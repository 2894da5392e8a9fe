/**
 * Unauthenticated operational routes (DESIGN section 7): `/healthz` (the process serves every
 * route and the store is migrated), `/readyz` (the store answers, background workers run, the bid path is warm),
 * `/metrics` (Prometheus text), `/v1/openapi.json` (generated from the route schemas).
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../observability/metrics.js';

/** A readiness check: resolves when healthy, rejects (or resolves false) otherwise. */
export type ReadinessCheck = () => Promise<boolean>;

/** Registers the health, metrics and OpenAPI routes. */
export async function healthRoutes(
  app: FastifyInstance,
  options: { metrics: Metrics; checks: Record<string, ReadinessCheck>; readyTimeoutMs?: number },
): Promise<void> {
  const timeoutMs = options.readyTimeoutMs ?? 500;
  app.get('/healthz', { schema: { tags: ['health'], summary: 'Liveness' } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { tags: ['health'], summary: 'Readiness: store reachable, workers running, bid path warm' } }, async (_request, reply) => {
    const results: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const ok = await Promise.race([
            check(),
            new Promise<boolean>((resolve) => {
              timer = setTimeout(resolve, timeoutMs, false);
            }),
          ]);
          results[name] = ok ? 'ok' : 'failing';
          if (!ok) ready = false;
        } catch {
          results[name] = 'failing';
          ready = false;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks: results });
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await options.metrics.registry.metrics();
    return reply.type(options.metrics.registry.contentType).send(text);
  });

  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
