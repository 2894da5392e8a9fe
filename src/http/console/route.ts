/**
 * The operator console's files (DESIGN section 12): `GET /console` (and `/console/`) answers the
 * single-page app's index.html, `/console/<file>` its bundled script, styles and source maps, all
 * built into `dist/console/` by `npm run build` (scripts/build-console.mjs). No admin key is needed
 * for these files; the app asks for it and calls the admin API with it.
 *
 * Every answer of this plugin carries a Content-Security-Policy allowing only the exchange's own
 * origin (no inline script or style, no frames, no other hosts), with nosniff, no referrer and no
 * framing. When the console is not built, `/console` answers 503 problem+json saying so.
 * Register it without `fastify-plugin`, so its hooks stay encapsulated:
 *
 * ```ts
 * await app.register(consoleRoutes, { dir: findConsoleDir() });
 * ```
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { sendProblem } from '../problem.js';

/** The policy of every console answer: the exchange's own origin only. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Where the built console is: `dist/console` beside the compiled server (`dist/http/console/` ->
 * `dist/console`), or, when running from the TypeScript sources (tests), the repository's
 * `dist/console`. Undefined when neither holds an index.html.
 */
export function findConsoleDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', 'console'), join(here, '..', '..', '..', 'dist', 'console')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** What {@link consoleRoutes} needs. */
export interface ConsoleRouteOptions {
  /** The built console's folder, or undefined when it is not built. */
  dir: string | undefined;
}

/** Registers the console's routes (see the module comment). */
export const consoleRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { dir }) => {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });

  if (dir === undefined) {
    const notBuilt = async (_request: unknown, reply: Parameters<typeof sendProblem>[0]) =>
      sendProblem(reply, 'not_ready', 'the console is not built: run `npm run build`');
    app.get('/console', { schema: { hide: true } }, notBuilt);
    app.get('/console/*', { schema: { hide: true } }, notBuilt);
    return;
  }

  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    index: false,
    wildcard: true,
    // The script and styles change with every build under the same names: revalidate each time
    // (an ETag makes that a 304).
    cacheControl: true,
    maxAge: 0,
    etag: true,
    lastModified: true,
  });
  const index = async (_request: unknown, reply: { sendFile(name: string): unknown; header(k: string, v: string): unknown }) => {
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  };
  app.get('/console', { schema: { hide: true } }, index as never);
  app.get('/console/', { schema: { hide: true } }, index as never);
};
