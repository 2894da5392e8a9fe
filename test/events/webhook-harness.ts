/**
 * Test harness for webhook endpoints and events: a real SQLite store in a fresh temp dir, a
 * ManualClock, sequential ids, the event emitter, the webhook endpoint service (enqueueing into
 * the real outbox) and a fastify app configured like the real one with the problem handlers and
 * `webhookEndpointRoutes`. Name resolution is faked (`resolveAll`) so no test leaves the machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { createPublisherService, type PublisherService } from '../../src/admin/publishers.js';
import { createWebhookEndpointService, type WebhookEndpointService } from '../../src/admin/webhook-endpoints.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import { createEventEmitter, type EventEmitter } from '../../src/events/emitter.js';
import { webhookEndpointRoutes } from '../../src/http/admin/webhook-endpoints.js';
import { installProblemHandlers } from '../../src/http/problem.js';
import { silentLogger } from '../../src/observability/logger.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';
import { createSecretBox, type SecretBox } from '../../src/webhooks/secret-box.js';
import type { ResolveAll } from '../../src/webhooks/ssrf.js';

/** The admin key the harness app expects. */
export const ADMIN_KEY = 'test-admin-key-webhooks';

/** Authorization header with the right admin key. */
export const auth = { authorization: `Bearer ${ADMIN_KEY}` };

/**
 * Fake DNS: `public.example` -> a public address, `rebind.example` -> a private one, anything
 * else does not resolve.
 */
export const fakeResolveAll: ResolveAll = async (hostname) => {
  if (hostname === 'public.example') return [{ address: '93.184.216.34', family: 4 }];
  if (hostname === 'rebind.example') return [{ address: '93.184.216.34', family: 4 }, { address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** Everything a test needs; `close()` removes it all. */
export interface WebhookHarness {
  store: SqliteStore;
  clock: ManualClock;
  box: SecretBox;
  emitter: EventEmitter;
  publishers: PublisherService;
  service: WebhookEndpointService;
  app: FastifyInstance;
  /** Count of the service's onChange calls. */
  changes: { count: number };
  close(): Promise<void>;
}

/** Builds a harness; `allowPrivateTargets` defaults to true (http://127.0.0.1 URLs). */
export async function createWebhookHarness(options: { allowPrivateTargets?: boolean } = {}): Promise<WebhookHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'adx-webhooks-'));
  const store = await openSqliteStore({ path: join(dir, 'adx.db') });
  await store.migrate();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const ids = createSequentialIds();
  const box = createSecretBox(randomBytes(32));
  const emitter = createEventEmitter({ store, ids, clock, log: silentLogger() });
  const publishers = createPublisherService({ store, clock, ids, keyRotationGraceSeconds: 0 });
  const changes = { count: 0 };
  const service = createWebhookEndpointService({
    store,
    clock,
    ids,
    box,
    allowPrivateTargets: options.allowPrivateTargets ?? true,
    resolveAll: fakeResolveAll,
    onChange: () => void changes.count++,
    enqueue: (messages) => store.outbox.enqueue(messages),
    emitter,
  });
  const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } } });
  installProblemHandlers(app);
  await app.register(webhookEndpointRoutes, { service, adminKey: ADMIN_KEY });
  await app.ready();
  return {
    store,
    clock,
    box,
    emitter,
    publishers,
    service,
    app,
    changes,
    async close() {
      emitter.stop();
      await app.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
