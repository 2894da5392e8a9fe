/**
 * Shared set-up of the dispatcher tests: a real SQLite store in a temp dir, endpoint records
 * sealed with a real secret box, outbox messages, and a dispatcher wired to them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { Clock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createWebhookMetrics, type WebhookMetrics } from '../../src/observability/webhook-metrics.js';
import type { OutboxMessage, WebhookEndpointRecord } from '../../src/storage/ports.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';
import { createWebhookDispatcher, type WebhookDispatcher, type WebhookDispatcherDeps } from '../../src/webhooks/dispatcher.js';
import { createSecretBox, type SecretBox } from '../../src/webhooks/secret-box.js';
import { generateWebhookSecret } from '../../src/webhooks/signer.js';

/** A migrated SQLite store in a fresh temp dir, a secret box, and a cleanup. */
export interface TestBed {
  store: SqliteStore;
  box: SecretBox;
  registry: Registry;
  metrics: WebhookMetrics;
  dispose(): Promise<void>;
}

export async function openTestBed(clock: Clock): Promise<TestBed> {
  const dir = await mkdtemp(join(tmpdir(), 'adx-webhooks-'));
  const store = await openSqliteStore({ path: join(dir, 'adx.db') });
  await store.migrate();
  const registry = new Registry();
  const metrics = createWebhookMetrics(registry, () => store.outbox.depth(), clock);
  return {
    store,
    box: createSecretBox(randomBytes(32)),
    registry,
    metrics,
    async dispose() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

let endpointSeq = 0;
let messageSeq = 0;

/** Creates an enabled endpoint; answers the record and its plaintext secret and API key. */
export async function createEndpoint(
  bed: TestBed,
  clock: Clock,
  fields: { url: string; secret?: string; apiKey?: string; previousSecret?: string; previousSecretExpiresAtMs?: number; enabled?: boolean },
): Promise<{ record: WebhookEndpointRecord; secret: string; apiKey: string }> {
  const secret = fields.secret ?? generateWebhookSecret();
  const apiKey = fields.apiKey ?? `whk_test_${++endpointSeq}`;
  const nowMs = clock.now();
  const record: WebhookEndpointRecord = {
    id: `ep_test_${++endpointSeq}`,
    url: fields.url,
    events: [],
    apiKeyCiphertext: bed.box.seal(apiKey),
    publisherId: null,
    enabled: fields.enabled ?? true,
    description: null,
    secretCiphertext: bed.box.seal(secret),
    previousSecretCiphertext: fields.previousSecret === undefined ? null : bed.box.seal(fields.previousSecret),
    previousSecretExpiresAtMs: fields.previousSecretExpiresAtMs ?? null,
    disabledReason: null,
    lastSuccessAtMs: null,
    failingSinceMs: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  };
  await bed.store.webhookEndpoints.create(record);
  return { record, secret, apiKey };
}

/**
 * A new pending message due now (not stored), unclaimed; `body` defaults to a JSON text with
 * spacing JSON.stringify would not keep.
 */
export function newMessage(clock: Clock, endpointId: string, fields: { eventKind?: string; body?: string; createdAtMs?: number } = {}): OutboxMessage {
  const nowMs = fields.createdAtMs ?? clock.now();
  const id = `msg_test_${++messageSeq}`;
  return {
    id,
    endpointId,
    eventKind: fields.eventKind ?? 'auction.complete',
    body: fields.body ?? `{"event": "auction.complete", "auction_id": "auc_${messageSeq}", "note": "ünï"}`,
    publisherId: null,
    status: 'pending',
    attempts: 0,
    nextAttemptAtMs: nowMs,
    createdAtMs: nowMs,
    claimedBy: null,
    claimExpiresAtMs: null,
    deliveredAtMs: null,
    lastError: null,
  };
}

/** Enqueues one pending message due now (`newMessage`) and answers it. */
export async function enqueueMessage(
  bed: TestBed,
  clock: Clock,
  endpointId: string,
  fields: { eventKind?: string; body?: string; createdAtMs?: number } = {},
): Promise<OutboxMessage> {
  const message = newMessage(clock, endpointId, fields);
  await bed.store.outbox.enqueue([message]);
  return message;
}

/** A dispatcher over the test bed: loopback allowed, fast polling, jitter 0 (random() = 0.5). */
export function startDispatcher(bed: TestBed, clock: Clock, overrides: Partial<WebhookDispatcherDeps> = {}): WebhookDispatcher {
  const dispatcher = createWebhookDispatcher({
    store: bed.store,
    box: bed.box,
    clock,
    log: silentLogger(),
    metrics: bed.metrics,
    owner: 'node-test',
    retryScheduleMs: [0, 1000, 1000],
    allowPrivateTargets: true,
    pollIntervalMs: 20,
    attemptTimeoutMs: 5000,
    random: () => 0.5,
    ...overrides,
  });
  dispatcher.start();
  return dispatcher;
}

/** Polls `check` (real time, every 10 ms) until it answers true; throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits `ms` of real time (to show that something did NOT happen meanwhile). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The value of a counter/gauge series in the registry's text output, or undefined. */
export async function metricValue(registry: Registry, series: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
