import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import { createEventEmitter, type EventEmitter } from '../../src/events/emitter.js';
import { auctionCompletePayload, billingNoticePayload, reportDailyPayload, webhookTestPayload } from '../../src/events/payloads.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { WebhookEndpointRecord } from '../../src/storage/ports.js';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/index.js';

const T0 = Date.UTC(2026, 0, 1);

function endpoint(id: string, fields: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
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
    createdAtMs: T0,
    updatedAtMs: T0,
    ...fields,
  };
}

const auction = (publisherId: string) =>
  auctionCompletePayload({
    auctionId: 'auc_x',
    requestId: 'r',
    impId: '1',
    bidId: 'bid_x',
    publisherId,
    seat: 'dsp_1',
    bidMicros: 2_000_000,
    clearingMicros: 1_000_000,
    currency: 'USD',
    nowMs: T0,
  });

describe('event emitter', () => {
  let dir: string;
  let store: SqliteStore;
  let clock: ManualClock;
  let emitter: EventEmitter;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-emitter-'));
    store = await openSqliteStore({ path: join(dir, 'adx.db') });
    await store.migrate();
    for (const id of ['pub_a', 'pub_b']) {
      await store.publishers.create(
        { id, name: id, domain: null, domains: [], browserAccess: false, auctionType: 1, reservePriceMicros: 0, sellerType: 'PUBLISHER', isConfidential: false, createdAtMs: T0, updatedAtMs: T0 },
        { id: `key_${id}`, publisherId: id, keyHash: `hash_${id}`, prefix: 'adxk_', createdAtMs: T0, expiresAtMs: null },
      );
    }
    clock = new ManualClock(T0);
    emitter = createEventEmitter({ store, ids: createSequentialIds(), clock, log: silentLogger() });
  });
  afterEach(async () => {
    emitter.stop();
    vi.useRealTimers();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('routes by subscription, scope and enabled; one body string shared by all rows', async () => {
    await store.webhookEndpoints.create(endpoint('ep_all'));
    await store.webhookEndpoints.create(endpoint('ep_auction', { events: ['auction.complete'] }));
    await store.webhookEndpoints.create(endpoint('ep_billing', { events: ['billing.notice'] }));
    await store.webhookEndpoints.create(endpoint('ep_pub_a', { publisherId: 'pub_a' }));
    await store.webhookEndpoints.create(endpoint('ep_pub_b', { publisherId: 'pub_b' }));
    await store.webhookEndpoints.create(endpoint('ep_off', { enabled: false, disabledReason: 'gone' }));
    // Nothing is known before the first refresh.
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toEqual([]);
    await emitter.refresh();
    clock.advance(1234);

    const payload = auction('pub_a');
    const messages = emitter.messagesFor(payload, 'pub_a');
    expect(messages.map((m) => m.endpointId).sort()).toEqual(['ep_all', 'ep_auction', 'ep_pub_a']);
    const body = JSON.stringify(payload);
    for (const m of messages) {
      expect(m).toEqual({
        id: m.id,
        endpointId: m.endpointId,
        eventKind: 'auction.complete',
        body,
        publisherId: 'pub_a',
        status: 'pending',
        attempts: 0,
        nextAttemptAtMs: T0 + 1234,
        createdAtMs: T0 + 1234,
        claimedBy: null,
        claimExpiresAtMs: null,
        deliveredAtMs: null,
        lastError: null,
      });
      expect(m.id).toMatch(/^msg_/);
    }
    expect(new Set(messages.map((m) => m.id)).size).toBe(3);

    const billing = billingNoticePayload({ auctionId: 'a', bidId: 'b', publisherId: 'pub_b', seat: 's', priceMicros: 1, currency: 'USD', nowMs: T0 });
    expect(emitter.messagesFor(billing, 'pub_b').map((m) => m.endpointId).sort()).toEqual(['ep_all', 'ep_billing', 'ep_pub_b']);

    // An exchange-wide event (publisher null) goes only to endpoints without scope.
    const report = reportDailyPayload({
      date: '2026-01-01', publisherId: 'pub_a', requests: 0, imps: 0, bids: 0, wins: 0, impressions: 0,
      fillRate: 0, winRate: 0, revenueGrossMicros: 0, revenueNetMicros: 0, ecpmMicros: 0, nowMs: T0,
    });
    expect(emitter.messagesFor(report, null).map((m) => m.endpointId)).toEqual(['ep_all']);

    // The messages are valid outbox rows.
    await store.outbox.enqueue(messages);
    expect(await store.outbox.get(messages[0]!.id)).toMatchObject({ body, status: 'pending' });
  });

  it('wants() answers whether any enabled endpoint receives a kind for a publisher, as messagesFor routes', async () => {
    await emitter.refresh();
    expect(emitter.wants('auction.complete', 'pub_a')).toBe(false);
    await store.webhookEndpoints.create(endpoint('ep_billing_b', { events: ['billing.notice'], publisherId: 'pub_b' }));
    await store.webhookEndpoints.create(endpoint('ep_off', { enabled: false }));
    await emitter.refresh();
    expect(emitter.wants('auction.complete', 'pub_a')).toBe(false);
    expect(emitter.wants('billing.notice', 'pub_a')).toBe(false);
    expect(emitter.wants('billing.notice', 'pub_b')).toBe(true);
    await store.webhookEndpoints.create(endpoint('ep_all_global'));
    await emitter.refresh();
    expect(emitter.wants('auction.complete', 'pub_a')).toBe(true);
    expect(emitter.wants('auction.complete', null)).toBe(true);
  });

  it('sends webhook.test only to onlyEndpointId, whatever it subscribes to, never to a disabled one', async () => {
    await store.webhookEndpoints.create(endpoint('ep_all'));
    await store.webhookEndpoints.create(endpoint('ep_auction', { events: ['auction.complete'], publisherId: 'pub_b' }));
    await store.webhookEndpoints.create(endpoint('ep_off', { enabled: false }));
    await emitter.refresh();
    expect(emitter.messagesFor(webhookTestPayload('ep_all', T0), null)).toEqual([]);
    const test = emitter.messagesFor(webhookTestPayload('ep_auction', T0), null, { onlyEndpointId: 'ep_auction' });
    expect(test.map((m) => [m.endpointId, m.eventKind, m.body])).toEqual([
      ['ep_auction', 'webhook.test', '{"event":"webhook.test","endpoint_id":"ep_auction","timestamp":"2026-01-01T00:00:00.000Z"}'],
    ]);
    expect(emitter.messagesFor(webhookTestPayload('ep_off', T0), null, { onlyEndpointId: 'ep_off' })).toEqual([]);
    // onlyEndpointId on another kind still applies the subscription and scope rules.
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a', { onlyEndpointId: 'ep_auction' })).toEqual([]);
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a', { onlyEndpointId: 'ep_all' }).map((m) => m.endpointId)).toEqual(['ep_all']);
  });

  it('sees changes after refresh, and keeps the previous list when a reload fails', async () => {
    await emitter.refresh();
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toEqual([]);
    await store.webhookEndpoints.create(endpoint('ep_1'));
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toEqual([]);
    await Promise.all([emitter.refresh(), emitter.refresh()]);
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toHaveLength(1);
    await store.webhookEndpoints.update('ep_1', { enabled: false });
    await emitter.refresh();
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toEqual([]);

    await store.webhookEndpoints.update('ep_1', { enabled: true });
    await store.close();
    await expect(emitter.refresh()).rejects.toThrow();
    expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toEqual([]);
  });

  it('reloads every refreshIntervalMs once started', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const list = vi.spyOn(store.webhookEndpoints, 'list');
    emitter = createEventEmitter({ store, ids: createSequentialIds(), clock, refreshIntervalMs: 500, log: silentLogger() });
    emitter.start();
    await vi.waitFor(() => expect(list).toHaveBeenCalledTimes(1));
    await store.webhookEndpoints.create(endpoint('ep_1'));
    await vi.advanceTimersByTimeAsync(500);
    await vi.waitFor(() => expect(emitter.messagesFor(auction('pub_a'), 'pub_a')).toHaveLength(1));
    expect(list).toHaveBeenCalledTimes(2);
    emitter.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(list).toHaveBeenCalledTimes(2);
  });

  it('refuses a non-positive refresh interval', () => {
    expect(() => createEventEmitter({ store, ids: createSequentialIds(), clock, refreshIntervalMs: 0, log: silentLogger() })).toThrow();
  });
});
