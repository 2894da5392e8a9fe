/**
 * Test harness for the admin API: a real SQLite store in a fresh temp dir, a ManualClock,
 * sequential ids, both services, and a fastify app configured like the real one (no type
 * coercion, unknown fields kept, all errors) with the problem handlers and the admin plugin.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { createDemandPartnerService, type DemandPartnerService } from '../../src/admin/demand-partners.js';
import { createPublisherService, type PublisherService } from '../../src/admin/publishers.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import { adminRoutes } from '../../src/http/admin/index.js';
import { installProblemHandlers } from '../../src/http/problem.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';

/** The admin key the harness app expects. */
export const ADMIN_KEY = 'test-admin-key-0123456789';

/** Authorization header with the right admin key. */
export const auth = { authorization: `Bearer ${ADMIN_KEY}` };

/** Grace period of key rotation in the harness, seconds. */
export const GRACE_SECONDS = 3600;

/** Everything a test needs; `close()` removes it all. */
export interface AdminHarness {
  dir: string;
  dbPath: string;
  store: SqliteStore;
  clock: ManualClock;
  publishers: PublisherService;
  demandPartners: DemandPartnerService;
  app: FastifyInstance;
  /** Counts of onChange calls per service. */
  changes: { publishers: number; demandPartners: number };
  close(): Promise<void>;
}

/** Builds a harness; `adminKey` defaults to {@link ADMIN_KEY}. */
export async function createAdminHarness(options: { adminKey?: string } = {}): Promise<AdminHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'adx-admin-'));
  const dbPath = join(dir, 'adx.db');
  const store = await openSqliteStore({ path: dbPath });
  await store.migrate();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const ids = createSequentialIds();
  const changes = { publishers: 0, demandPartners: 0 };
  const publishers = createPublisherService({
    store,
    clock,
    ids,
    keyRotationGraceSeconds: GRACE_SECONDS,
    onChange: () => void changes.publishers++,
  });
  const demandPartners = createDemandPartnerService({
    store,
    clock,
    ids,
    adapterCodes: ['openrtb25', 'other'],
    onChange: () => void changes.demandPartners++,
  });
  const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } } });
  installProblemHandlers(app);
  await app.register(adminRoutes, { publishers, demandPartners, adminKey: options.adminKey ?? ADMIN_KEY });
  await app.ready();
  return {
    dir,
    dbPath,
    store,
    clock,
    publishers,
    demandPartners,
    app,
    changes,
    async close() {
      await app.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
