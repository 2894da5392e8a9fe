/**
 * Test harness for reporting: a real SQLite store in a fresh temp dir, a ManualClock, sequential
 * ids, the real counter aggregator and the real event emitter over two webhook endpoints (`ep_all`,
 * global, every kind; `ep_pub_a`, scoped to `pub_a`, report.daily only), so tests assert the
 * outbox rows' bodies. Nothing is delivered over HTTP here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/domain/clock.js';
import { createSequentialIds, type IdGenerator } from '../../src/domain/ids.js';
import { createEventEmitter, type EventEmitter } from '../../src/events/emitter.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createCounterAggregator, type CounterAggregator } from '../../src/reporting/counters.js';
import type { OutboxMessage, WebhookEndpointRecord } from '../../src/storage/ports.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';

/** 2026-03-10T00:00:00Z: the start of the harness's first day. */
export const DAY0 = Date.UTC(2026, 2, 10);
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export function endpoint(id: string, fields: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id,
    url: `http://127.0.0.1:9/${id}`,
    events: [],
    apiKeyCiphertext: 'sealed-key',
    publisherId: null,
    enabled: true,
    description: null,
    secretCiphertext: 'sealed-secret',
    previousSecretCiphertext: null,
    previousSecretExpiresAtMs: null,
    disabledReason: null,
    lastSuccessAtMs: null,
    failingSinceMs: null,
    createdAtMs: DAY0,
    updatedAtMs: DAY0,
    ...fields,
  };
}

/** Everything a reporting test needs; `close()` removes it all. */
export interface ReportingHarness {
  dir: string;
  dbPath: string;
  store: SqliteStore;
  clock: ManualClock;
  ids: IdGenerator;
  counters: CounterAggregator;
  emitter: EventEmitter;
  log: ReturnType<typeof silentLogger>;
  /** Outbox rows of `kind`, oldest first, with parsed bodies. */
  outbox(kind?: string): Promise<(OutboxMessage & { payload: Record<string, unknown> })[]>;
  /** Closes the store and reopens the same file: a "restart" (new aggregator, new emitter). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Builds a harness with the clock at `startMs` (default {@link DAY0} + 10 h). */
export async function createReportingHarness(startMs = DAY0 + 10 * HOUR_MS): Promise<ReportingHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'adx-reporting-'));
  const dbPath = join(dir, 'adx.db');
  const clock = new ManualClock(startMs);
  const ids = createSequentialIds();
  const log = silentLogger();

  const open = async () => {
    const store = await openSqliteStore({ path: dbPath });
    await store.migrate();
    const counters = createCounterAggregator({ store, clock, flushIntervalMs: 1000, log });
    const emitter = createEventEmitter({ store, ids, clock, log });
    return { store, counters, emitter };
  };

  const first = await open();
  await first.store.webhookEndpoints.create(endpoint('ep_all'));
  await first.store.webhookEndpoints.create(endpoint('ep_pub_a', { publisherId: 'pub_a', events: ['report.daily'] }));

  const harness: ReportingHarness = {
    dir,
    dbPath,
    ...first,
    clock,
    ids,
    log,
    async outbox(kind) {
      let query = harness.store.db.selectFrom('outbox_messages').select('id').orderBy('created_at_ms').orderBy('id');
      if (kind !== undefined) query = query.where('event_kind', '=', kind);
      const rows = await query.execute();
      const out = [];
      for (const row of rows) {
        const message = (await harness.store.outbox.get(row.id)) as OutboxMessage;
        out.push({ ...message, payload: JSON.parse(message.body) as Record<string, unknown> });
      }
      return out;
    },
    async restart() {
      await harness.counters.stop();
      await harness.store.close();
      Object.assign(harness, await open());
    },
    async close() {
      await harness.counters.stop();
      await harness.store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
