/**
 * The storage contract for webhooks (DESIGN section 6): `WebhookEndpointStore`, `OutboxStore`, and
 * the transactional writes that put outbox rows beside the state change causing them
 * (`Store.writeAuction`, `NoticeStore.record` with messages). Registered by `defineStoreContract`
 * inside its describe block, so it runs on every backend against a fresh, migrated store.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryAttemptRecord, OutboxAttemptUpdate, OutboxMessage, Store } from '../../src/storage/ports.js';
import { bid, endpoint, message, notice, T0 } from './records.js';

/** An attempt record of `messageId`, failed with a 500 by default. */
function attempt(messageId: string, n: number, overrides: Partial<DeliveryAttemptRecord> = {}): DeliveryAttemptRecord {
  return {
    messageId,
    attempt: n,
    startedAtMs: T0 + n * 1000,
    durationMs: 12,
    statusCode: 500,
    error: null,
    responseExcerpt: 'oops',
    nextAttemptAtMs: T0 + n * 1000 + 5000,
    ...overrides,
  };
}

const idsOf = (messages: OutboxMessage[]): string[] => messages.map((m) => m.id);

/** Registers the webhook storage tests; `getStore` answers the current test's store. */
export function defineWebhookStoreContract(getStore: () => Store): void {
  describe('webhook endpoints', () => {
    it('create then get round-trips every field, the events list as JSON and set nullable fields', async () => {
      const store = getStore();
      const full = endpoint('we_1', {
        events: ['auction.complete', 'billing.notice'],
        publisherId: 'pub_1',
        enabled: false,
        description: 'partner hooks',
        previousSecretCiphertext: 'ct-old',
        previousSecretExpiresAtMs: T0 + 86_400_000,
        disabledReason: 'gone',
        lastSuccessAtMs: T0 - 5,
        failingSinceMs: T0 - 1,
        updatedAtMs: T0 + 7,
      });
      await store.webhookEndpoints.create(full);
      expect(await store.webhookEndpoints.get('we_1')).toEqual(full);
      await store.webhookEndpoints.create(endpoint('we_2'));
      expect(await store.webhookEndpoints.get('we_2')).toEqual(endpoint('we_2'));
      expect(await store.webhookEndpoints.get('we_none')).toBeUndefined();
    });

    it('list answers endpoints in creation order; a duplicate id is refused', async () => {
      const store = getStore();
      await store.webhookEndpoints.create(endpoint('we_b', { createdAtMs: T0 + 1 }));
      await store.webhookEndpoints.create(endpoint('we_a', { createdAtMs: T0 + 2 }));
      expect((await store.webhookEndpoints.list()).map((e) => e.id)).toEqual(['we_b', 'we_a']);
      await expect(store.webhookEndpoints.create(endpoint('we_a'))).rejects.toThrow();
    });

    it('update applies the given fields, null clears, booleans both ways; unknown id answers undefined', async () => {
      const store = getStore();
      await store.webhookEndpoints.create(endpoint('we_1', { description: 'x', failingSinceMs: T0 }));
      const disabled = await store.webhookEndpoints.update('we_1', { enabled: false, disabledReason: 'failing', events: ['report.daily'], updatedAtMs: T0 + 1 });
      expect(disabled).toEqual(endpoint('we_1', { description: 'x', failingSinceMs: T0, enabled: false, disabledReason: 'failing', events: ['report.daily'], updatedAtMs: T0 + 1 }));
      const enabled = await store.webhookEndpoints.update('we_1', { enabled: true, disabledReason: null, description: null, failingSinceMs: null, lastSuccessAtMs: T0 + 2 });
      expect(enabled).toMatchObject({ enabled: true, disabledReason: null, description: null, failingSinceMs: null, lastSuccessAtMs: T0 + 2, events: ['report.daily'] });
      expect(await store.webhookEndpoints.get('we_1')).toEqual(enabled);
      expect(await store.webhookEndpoints.update('we_none', { enabled: false })).toBeUndefined();
      expect(await store.webhookEndpoints.update('we_none', {})).toBeUndefined();
    });

    it('delete removes the endpoint with its messages and attempts, leaving other endpoints alone', async () => {
      const store = getStore();
      await store.webhookEndpoints.create(endpoint('we_1'));
      await store.webhookEndpoints.create(endpoint('we_2'));
      await store.outbox.enqueue([message('msg_1'), message('msg_2', { endpointId: 'we_2' })]);
      await store.outbox.recordAttempt(attempt('msg_1', 1), { status: 'pending', attempts: 1, nextAttemptAtMs: T0 + 5, deliveredAtMs: null, lastError: 'HTTP 500' });
      await store.outbox.recordAttempt(attempt('msg_2', 1), { status: 'pending', attempts: 1, nextAttemptAtMs: T0 + 5, deliveredAtMs: null, lastError: 'HTTP 500' });
      expect(await store.webhookEndpoints.delete('we_1')).toBe(true);
      expect(await store.webhookEndpoints.get('we_1')).toBeUndefined();
      expect(await store.outbox.get('msg_1')).toBeUndefined();
      expect(await store.outbox.attemptsFor('msg_1')).toEqual([]);
      expect(await store.outbox.get('msg_2')).toBeDefined();
      expect(await store.outbox.attemptsFor('msg_2')).toHaveLength(1);
      expect(await store.webhookEndpoints.delete('we_1')).toBe(false);
    });
  });

  describe('outbox: enqueue and claims', () => {
    it('enqueue round-trips every field and is idempotent per message id; an empty batch is fine', async () => {
      const store = getStore();
      const m = message('msg_1', { publisherId: null, lastError: 'e', attempts: 2, deliveredAtMs: T0 + 3, status: 'failed', nextAttemptAtMs: T0 + 9 });
      await store.outbox.enqueue([m]);
      await store.outbox.enqueue([{ ...m, body: 'changed', status: 'pending' }, message('msg_2')]);
      await store.outbox.enqueue([]);
      expect(await store.outbox.get('msg_1')).toEqual(m);
      expect(await store.outbox.get('msg_2')).toEqual(message('msg_2'));
      expect(await store.outbox.get('msg_none')).toBeUndefined();
    });

    it('claimDue takes pending, due messages oldest due first up to limit, skipping excluded endpoints', async () => {
      const store = getStore();
      await store.outbox.enqueue([
        message('msg_late', { nextAttemptAtMs: T0 + 30 }),
        message('msg_early', { nextAttemptAtMs: T0 + 10 }),
        message('msg_now', { nextAttemptAtMs: T0 + 50 }),
        message('msg_future', { nextAttemptAtMs: T0 + 51 }),
        message('msg_mid', { nextAttemptAtMs: T0 + 20 }),
        message('msg_excluded', { endpointId: 'we_slow', nextAttemptAtMs: T0 }),
        message('msg_delivered', { status: 'delivered', nextAttemptAtMs: T0 }),
        message('msg_failed', { status: 'failed', nextAttemptAtMs: T0 }),
      ]);
      const options = { owner: 'node_a', nowMs: T0 + 50, leaseMs: 30_000, excludeEndpointIds: ['we_slow'] };
      const first = await store.outbox.claimDue({ ...options, limit: 2 });
      expect(idsOf(first)).toEqual(['msg_early', 'msg_mid']);
      for (const m of first) expect(m).toMatchObject({ claimedBy: 'node_a', claimExpiresAtMs: T0 + 50 + 30_000, status: 'pending' });
      expect(await store.outbox.get('msg_early')).toMatchObject({ claimedBy: 'node_a', claimExpiresAtMs: T0 + 50 + 30_000 });
      // Same owner, same instant: only messages not claimed yet, due exactly now included.
      expect(idsOf(await store.outbox.claimDue({ ...options, limit: 10 }))).toEqual(['msg_late', 'msg_now']);
      expect(await store.outbox.claimDue({ ...options, limit: 10 })).toEqual([]);
      expect(idsOf(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0 + 50, leaseMs: 30_000, limit: 10 }))).toEqual(['msg_excluded']);
      expect(await store.outbox.claimDue({ ...options, limit: 0 })).toEqual([]);
      expect((await store.outbox.get('msg_future'))?.claimedBy).toBeNull();
      expect((await store.outbox.get('msg_delivered'))?.claimedBy).toBeNull();
      expect((await store.outbox.get('msg_failed'))?.claimedBy).toBeNull();
    });

    it('concurrent claimDue calls never answer the same message, and together take every due one', async () => {
      const store = getStore();
      await store.outbox.enqueue(Array.from({ length: 60 }, (_, i) => message(`msg_${String(i).padStart(2, '0')}`, { nextAttemptAtMs: T0 + i })));
      const claims = await Promise.all(
        ['node_a', 'node_b', 'node_c', 'node_d'].map((owner) => store.outbox.claimDue({ owner, nowMs: T0 + 100, limit: 20, leaseMs: 30_000 })),
      );
      const all = claims.flatMap(idsOf);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toHaveLength(60);
      for (const [i, owner] of ['node_a', 'node_b', 'node_c', 'node_d'].entries()) {
        for (const m of claims[i] ?? []) expect((await store.outbox.get(m.id))?.claimedBy).toBe(owner);
      }
    });

    it('an unexpired claim cannot be taken by another owner; an expired one can', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1')]);
      expect(idsOf(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0, limit: 5, leaseMs: 1000 }))).toEqual(['msg_1']);
      expect(await store.outbox.claimDue({ owner: 'node_b', nowMs: T0 + 999, limit: 5, leaseMs: 1000 })).toEqual([]);
      const taken = await store.outbox.claimDue({ owner: 'node_b', nowMs: T0 + 1000, limit: 5, leaseMs: 1000 });
      expect(taken).toEqual([message('msg_1', { claimedBy: 'node_b', claimExpiresAtMs: T0 + 2000 })]);
    });

    it('releaseClaims(owner) clears that owner only; releaseClaims() clears every claim; both answer how many', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1'), message('msg_2'), message('msg_3')]);
      await store.outbox.claimDue({ owner: 'node_a', nowMs: T0, limit: 2, leaseMs: 1000 });
      await store.outbox.claimDue({ owner: 'node_b', nowMs: T0, limit: 2, leaseMs: 1000 });
      expect(await store.outbox.releaseClaims('node_b')).toBe(1);
      expect(await store.outbox.get('msg_3')).toEqual(message('msg_3'));
      expect((await store.outbox.get('msg_1'))?.claimedBy).toBe('node_a');
      expect(await store.outbox.releaseClaims('node_b')).toBe(0);
      expect(await store.outbox.releaseClaims()).toBe(2);
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1'));
      expect(idsOf(await store.outbox.claimDue({ owner: 'node_c', nowMs: T0, limit: 5, leaseMs: 1000 }))).toEqual(['msg_1', 'msg_2', 'msg_3']);
    });

    it('releaseMessages clears only the listed messages, and only when the owner holds them', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1'), message('msg_2'), message('msg_3')]);
      await store.outbox.claimDue({ owner: 'node_a', nowMs: T0, limit: 2, leaseMs: 1000 });
      await store.outbox.claimDue({ owner: 'node_b', nowMs: T0, limit: 1, leaseMs: 1000 });
      await store.outbox.releaseMessages('node_a', ['msg_1', 'msg_3']);
      await store.outbox.releaseMessages('node_a', []);
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1'));
      expect((await store.outbox.get('msg_2'))?.claimedBy).toBe('node_a');
      expect((await store.outbox.get('msg_3'))?.claimedBy).toBe('node_b');
    });
  });

  describe('outbox: attempts, listing, replay and recovery', () => {
    it('recordAttempt stores the attempt and applies the update, clearing the claim', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1')]);
      await store.outbox.claimDue({ owner: 'node_a', nowMs: T0, limit: 1, leaseMs: 30_000 });
      const update: OutboxAttemptUpdate = { status: 'pending', attempts: 1, nextAttemptAtMs: T0 + 5000, deliveredAtMs: null, lastError: 'HTTP 500' };
      await store.outbox.recordAttempt(attempt('msg_1', 1, { error: 'HTTP 500', nextAttemptAtMs: T0 + 5000 }), update);
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1', { attempts: 1, nextAttemptAtMs: T0 + 5000, lastError: 'HTTP 500' }));
      expect(await store.outbox.attemptsFor('msg_1')).toEqual([attempt('msg_1', 1, { error: 'HTTP 500', nextAttemptAtMs: T0 + 5000 })]);
      // Not due again before its next attempt, although unclaimed.
      expect(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0 + 4999, limit: 1, leaseMs: 30_000 })).toEqual([]);
      expect(idsOf(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0 + 5000, limit: 1, leaseMs: 30_000 }))).toEqual(['msg_1']);
      const delivered = attempt('msg_1', 2, { statusCode: 204, responseExcerpt: null, nextAttemptAtMs: null });
      await store.outbox.recordAttempt(delivered, { status: 'delivered', attempts: 2, nextAttemptAtMs: T0 + 5000, deliveredAtMs: T0 + 6000, lastError: null });
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1', { status: 'delivered', attempts: 2, nextAttemptAtMs: T0 + 5000, deliveredAtMs: T0 + 6000 }));
      expect(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0 + 99_999, limit: 1, leaseMs: 30_000 })).toEqual([]);
    });

    it('attemptsFor answers attempts in attempt order with null status for no answer', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1')]);
      const update: OutboxAttemptUpdate = { status: 'pending', attempts: 1, nextAttemptAtMs: T0, deliveredAtMs: null, lastError: 'x' };
      const timeout = attempt('msg_1', 2, { statusCode: null, error: 'timeout', responseExcerpt: null });
      await store.outbox.recordAttempt(timeout, update);
      await store.outbox.recordAttempt(attempt('msg_1', 1), update);
      await store.outbox.recordAttempt(attempt('msg_1', 3), update);
      expect(await store.outbox.attemptsFor('msg_1')).toEqual([attempt('msg_1', 1), timeout, attempt('msg_1', 3)]);
      expect(await store.outbox.attemptsFor('msg_none')).toEqual([]);
    });

    it('listForEndpoint answers newest first, filtered by status, at most limit, of that endpoint only', async () => {
      const store = getStore();
      await store.outbox.enqueue([
        message('msg_1', { createdAtMs: T0 + 1 }),
        message('msg_3', { createdAtMs: T0 + 3, status: 'failed' }),
        message('msg_2', { createdAtMs: T0 + 2, status: 'delivered' }),
        message('msg_4', { createdAtMs: T0 + 4 }),
        message('msg_other', { createdAtMs: T0 + 5, endpointId: 'we_2' }),
      ]);
      expect(idsOf(await store.outbox.listForEndpoint('we_1', { limit: 10 }))).toEqual(['msg_4', 'msg_3', 'msg_2', 'msg_1']);
      expect(idsOf(await store.outbox.listForEndpoint('we_1', { limit: 2 }))).toEqual(['msg_4', 'msg_3']);
      expect(idsOf(await store.outbox.listForEndpoint('we_1', { status: 'pending', limit: 10 }))).toEqual(['msg_4', 'msg_1']);
      expect(idsOf(await store.outbox.listForEndpoint('we_1', { status: 'failed', limit: 10 }))).toEqual(['msg_3']);
      expect(await store.outbox.listForEndpoint('we_none', { limit: 10 })).toEqual([]);
    });

    it('replay makes a message of the endpoint pending and due now; false for another endpoint or no message', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1', { status: 'failed', attempts: 10, nextAttemptAtMs: T0, lastError: 'HTTP 500' })]);
      expect(await store.outbox.replay('we_2', 'msg_1', T0 + 100)).toBe(false);
      expect(await store.outbox.replay('we_1', 'msg_none', T0 + 100)).toBe(false);
      expect((await store.outbox.get('msg_1'))?.status).toBe('failed');
      expect(await store.outbox.replay('we_1', 'msg_1', T0 + 100)).toBe(true);
      expect(await store.outbox.get('msg_1')).toMatchObject({ status: 'pending', nextAttemptAtMs: T0 + 100, attempts: 10, claimedBy: null });
      expect(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0 + 99, limit: 1, leaseMs: 1 })).toEqual([]);
      expect(idsOf(await store.outbox.claimDue({ owner: 'node_a', nowMs: T0 + 100, limit: 1, leaseMs: 1 }))).toEqual(['msg_1']);
    });

    it('recover makes the failed messages of the endpoint created since the time pending and due now', async () => {
      const store = getStore();
      await store.outbox.enqueue([
        message('msg_old', { status: 'failed', createdAtMs: T0 - 1 }),
        message('msg_at', { status: 'failed', createdAtMs: T0 }),
        message('msg_new', { status: 'failed', createdAtMs: T0 + 10 }),
        message('msg_ok', { status: 'delivered', createdAtMs: T0 + 10, deliveredAtMs: T0 + 11 }),
        message('msg_other', { status: 'failed', createdAtMs: T0 + 10, endpointId: 'we_2' }),
      ]);
      expect(await store.outbox.recover('we_1', T0, T0 + 500)).toBe(2);
      expect(await store.outbox.get('msg_at')).toMatchObject({ status: 'pending', nextAttemptAtMs: T0 + 500 });
      expect(await store.outbox.get('msg_new')).toMatchObject({ status: 'pending', nextAttemptAtMs: T0 + 500 });
      expect((await store.outbox.get('msg_old'))?.status).toBe('failed');
      expect((await store.outbox.get('msg_ok'))?.status).toBe('delivered');
      expect((await store.outbox.get('msg_other'))?.status).toBe('failed');
      expect(await store.outbox.recover('we_1', T0, T0 + 600)).toBe(0);
    });

    it('depth counts pending messages and answers the oldest due time among them', async () => {
      const store = getStore();
      expect(await store.outbox.depth()).toEqual({ pending: 0, oldestDueAtMs: null });
      await store.outbox.enqueue([
        message('msg_1', { nextAttemptAtMs: T0 + 20 }),
        message('msg_2', { nextAttemptAtMs: T0 + 10 }),
        message('msg_3', { status: 'failed', nextAttemptAtMs: T0 }),
        message('msg_4', { status: 'delivered', nextAttemptAtMs: T0 }),
      ]);
      expect(await store.outbox.depth()).toEqual({ pending: 2, oldestDueAtMs: T0 + 10 });
    });
  });

  describe('transactional writes', () => {
    it('writeAuction writes bids and messages; a retried batch changes nothing; an empty batch is fine', async () => {
      const store = getStore();
      await store.writeAuction({ bids: [bid('bid_1'), bid('bid_2')], messages: [message('msg_1'), message('msg_2')] });
      await store.writeAuction({ bids: [bid('bid_1', { seat: 'other' })], messages: [message('msg_1', { body: 'other' })] });
      await store.writeAuction({ bids: [], messages: [] });
      await store.writeAuction({ bids: [bid('bid_3')], messages: [] });
      await store.writeAuction({ bids: [], messages: [message('msg_3')] });
      expect(await store.bids.get('bid_1')).toEqual(bid('bid_1'));
      expect(await store.bids.get('bid_2')).toEqual(bid('bid_2'));
      expect(await store.bids.get('bid_3')).toEqual(bid('bid_3'));
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1'));
      expect(await store.outbox.get('msg_3')).toEqual(message('msg_3'));
      expect(await store.outbox.depth()).toMatchObject({ pending: 3 });
    });

    it('writeAuction is atomic: when one message cannot be stored, no bid and no message is written', async () => {
      const store = getStore();
      const broken = message('msg_bad', { body: null as unknown as string });
      await expect(store.writeAuction({ bids: [bid('bid_1'), bid('bid_2')], messages: [message('msg_ok'), broken] })).rejects.toThrow();
      expect(await store.bids.get('bid_1')).toBeUndefined();
      expect(await store.bids.get('bid_2')).toBeUndefined();
      expect(await store.outbox.get('msg_ok')).toBeUndefined();
      expect(await store.outbox.depth()).toEqual({ pending: 0, oldestDueAtMs: null });
      // The store is still usable after the rollback.
      await store.writeAuction({ bids: [bid('bid_1')], messages: [message('msg_ok')] });
      expect(await store.bids.get('bid_1')).toEqual(bid('bid_1'));
    });

    it('writeAuction records delivery attempts in the same transaction, as recordAttempt does', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1'), message('msg_2')]);
      await store.outbox.claimDue({ owner: 'node_a', nowMs: T0, limit: 2, leaseMs: 30_000 });
      const delivered = attempt('msg_1', 1, { statusCode: 204, responseExcerpt: null, nextAttemptAtMs: null });
      const failed = attempt('msg_2', 1, { error: 'HTTP 500', nextAttemptAtMs: T0 + 5000 });
      await store.writeAuction({
        bids: [bid('bid_1')],
        messages: [message('msg_3')],
        attempts: [
          { attempt: delivered, update: { status: 'delivered', attempts: 1, nextAttemptAtMs: T0, deliveredAtMs: T0 + 10, lastError: null } },
          { attempt: failed, update: { status: 'pending', attempts: 1, nextAttemptAtMs: T0 + 5000, deliveredAtMs: null, lastError: 'HTTP 500' } },
        ],
      });
      expect(await store.bids.get('bid_1')).toEqual(bid('bid_1'));
      expect(await store.outbox.get('msg_3')).toEqual(message('msg_3'));
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1', { status: 'delivered', attempts: 1, deliveredAtMs: T0 + 10 }));
      expect(await store.outbox.get('msg_2')).toEqual(message('msg_2', { attempts: 1, nextAttemptAtMs: T0 + 5000, lastError: 'HTTP 500' }));
      expect(await store.outbox.attemptsFor('msg_1')).toEqual([delivered]);
      expect(await store.outbox.attemptsFor('msg_2')).toEqual([failed]);
      // Attempts alone are a batch too; a repeated attempt number is ignored, its update applied.
      await store.writeAuction({
        bids: [],
        messages: [],
        attempts: [{ attempt: { ...failed, error: 'other' }, update: { status: 'failed', attempts: 1, nextAttemptAtMs: T0 + 5000, deliveredAtMs: null, lastError: 'gave up' } }],
      });
      expect(await store.outbox.attemptsFor('msg_2')).toEqual([failed]);
      expect((await store.outbox.get('msg_2'))?.status).toBe('failed');
    });

    it('writeAuction is atomic with attempts: an attempt that cannot be stored rolls back the bids, messages and other attempts', async () => {
      const store = getStore();
      await store.outbox.enqueue([message('msg_1'), message('msg_2')]);
      const update: OutboxAttemptUpdate = { status: 'delivered', attempts: 1, nextAttemptAtMs: T0, deliveredAtMs: T0 + 10, lastError: null };
      const broken = attempt('msg_2', 1, { startedAtMs: null as unknown as number });
      await expect(
        store.writeAuction({ bids: [bid('bid_1')], messages: [message('msg_3')], attempts: [{ attempt: attempt('msg_1', 1), update }, { attempt: broken, update }] }),
      ).rejects.toThrow();
      expect(await store.bids.get('bid_1')).toBeUndefined();
      expect(await store.outbox.get('msg_3')).toBeUndefined();
      expect(await store.outbox.attemptsFor('msg_1')).toEqual([]);
      expect(await store.outbox.get('msg_1')).toEqual(message('msg_1'));
    });

    it('notices.record inserts its messages only when the notice is first', async () => {
      const store = getStore();
      const billing = notice('bid_1', { kind: 'billing', source: 'impression' });
      const first = await store.notices.record(billing, [message('msg_bill_1', { eventKind: 'billing.notice' })]);
      expect(first.outcome).toBe('first');
      expect(await store.outbox.get('msg_bill_1')).toEqual(message('msg_bill_1', { eventKind: 'billing.notice' }));
      const repeat = await store.notices.record(notice('bid_1', { kind: 'billing', source: 'billing' }), [message('msg_bill_2')]);
      expect(repeat).toEqual({ outcome: 'repeat', stored: billing, milestones: [] });
      expect(await store.outbox.get('msg_bill_2')).toBeUndefined();
      expect((await store.notices.record(notice('bid_2'))).outcome).toBe('first');
      expect((await store.notices.record(notice('bid_3'), [])).outcome).toBe('first');
    });

    it('notices.record is atomic: when a message cannot be stored the notice is not recorded either', async () => {
      const store = getStore();
      const broken = message('msg_bad', { body: null as unknown as string });
      await expect(store.notices.record(notice('bid_1'), [broken])).rejects.toThrow();
      expect(await store.outbox.get('msg_bad')).toBeUndefined();
      const again = await store.notices.record(notice('bid_1'), [message('msg_ok')]);
      expect(again.outcome).toBe('first');
      expect(await store.outbox.get('msg_ok')).toBeDefined();
    });
  });
}
