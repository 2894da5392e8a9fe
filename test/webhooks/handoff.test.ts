/**
 * Hand-off of new outbox messages (`WebhookDispatcher.preclaim`): rows inserted already claimed
 * by this node start once their insert has committed, with no claim statement; busy endpoints,
 * a backlog in the store, a failed insert and a stop in between each leave the claim path in
 * charge. Real SQLite store, real receivers on 127.0.0.1; the poll interval is a minute, so a
 * delivery seen here came by hand-off, not by a poll.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { startFakeReceiver, type FakeReceiver } from '../fakes/fake-receiver.js';
import { createEndpoint, enqueueMessage, newMessage as newMessageAt, openTestBed, pause, startDispatcher, waitUntil, type TestBed } from './helpers.js';

let clock: ManualClock;
let bed: TestBed;
let receiver: FakeReceiver;
let dispatcher: WebhookDispatcher | undefined;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  bed = await openTestBed(clock);
  receiver = await startFakeReceiver();
});

afterEach(async () => {
  await dispatcher?.stop(50);
  dispatcher = undefined;
  await receiver.close();
  await bed.dispose();
});

/** A new, unclaimed message for `endpointId` (not stored). */
const newMessage = (endpointId: string) => newMessageAt(clock, endpointId);

/** Waits until the dispatcher's first claim has run (it then takes hand-offs). */
async function handOffReady(d: WebhookDispatcher, endpointId: string): Promise<void> {
  await waitUntil(() => {
    const probe = d.preclaim([newMessage(endpointId)]);
    probe.failed();
    return probe.untaken === 0;
  }, 3000, 'the dispatcher to take hand-offs');
}

const MINUTE_POLL = { pollIntervalMs: 60_000 };

/**
 * An enabled endpoint at the receiver and a dispatcher (minute poll, plus `options`) ready to take
 * its hand-offs; the dispatcher is also kept for `afterEach` to stop.
 */
async function readyForHandOff(options: Parameters<typeof startDispatcher>[2] = {}): Promise<{ endpointId: string; d: WebhookDispatcher }> {
  const { record } = await createEndpoint(bed, clock, { url: receiver.url });
  const d = startDispatcher(bed, clock, { ...MINUTE_POLL, ...options });
  dispatcher = d;
  await handOffReady(d, record.id);
  return { endpointId: record.id, d };
}

describe('preclaim hand-off', () => {
  it('inserts the message claimed by this node and delivers it after the commit, without a claim or poll', async () => {
    const { endpointId, d } = await readyForHandOff();

    const message = newMessage(endpointId);
    const handoff = d.preclaim([message]);
    expect(handoff.untaken).toBe(0);
    expect(handoff.rows[0]).toMatchObject({ id: message.id, claimedBy: 'node-test', claimExpiresAtMs: clock.now() + 30_000, status: 'pending' });
    await bed.store.outbox.enqueue(handoff.rows);
    // Stored claimed: no other node (or this node's claim) takes it meanwhile.
    expect((await bed.store.outbox.get(message.id))!.claimedBy).toBe('node-test');
    await pause(50);
    expect(receiver.deliveries).toHaveLength(0); // nothing starts before the commit is reported
    handoff.committed();

    await receiver.waitForDeliveries(1);
    expect(receiver.deliveries[0]!.body).toBe(message.body);
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'delivered', 3000, 'delivered');
    const stored = await bed.store.outbox.get(message.id);
    expect(stored).toMatchObject({ attempts: 1, claimedBy: null, claimExpiresAtMs: null });
  });

  it('a failed insert forgets the hand-off: nothing is sent and no slot stays reserved', async () => {
    const { endpointId, d } = await readyForHandOff({ perEndpointConcurrency: 1, batchSize: 4 });
    // Busy threshold: cap 1 + half of the local queue bound max(8, 4) = 5 messages.
    for (let i = 0; i < 20; i++) {
      const handoff = d.preclaim([newMessage(endpointId)]);
      expect(handoff.untaken).toBe(0);
      handoff.failed();
    }
    await pause(100);
    expect(receiver.deliveries).toHaveLength(0);
  });

  it("leaves a busy endpoint's messages beyond its slots and half its queue to the claim", async () => {
    const { endpointId, d } = await readyForHandOff({ perEndpointConcurrency: 1, batchSize: 4 });
    const messages = Array.from({ length: 8 }, () => newMessage(endpointId));
    const handoff = d.preclaim(messages);
    expect(handoff.untaken).toBe(3);
    expect(handoff.rows.map((m) => m.claimedBy)).toEqual(['node-test', 'node-test', 'node-test', 'node-test', 'node-test', null, null, null]);
    await bed.store.outbox.enqueue(handoff.rows);
    handoff.committed();
    d.notify(); // as the writer does for untaken rows
    await receiver.waitForDeliveries(8);
    expect(new Set(receiver.deliveries.map((d) => d.body))).toEqual(new Set(messages.map((m) => m.body)));
    await waitUntil(async () => (await bed.store.outbox.depth()).pending === 0, 3000, 'every message delivered');
  });

  it('takes nothing while the last claim came back full (a backlog drains in due order first)', async () => {
    const slow = await startFakeReceiver({ respond: () => ({ status: 200, delayMs: 1000 }) });
    try {
      const { record } = await createEndpoint(bed, clock, { url: slow.url });
      for (let i = 0; i < 10; i++) await enqueueMessage(bed, clock, record.id, { createdAtMs: clock.now() - 1000 });
      dispatcher = startDispatcher(bed, clock, { ...MINUTE_POLL, perEndpointConcurrency: 1, batchSize: 4 });
      await slow.waitForDeliveries(1);
      const handoff = dispatcher.preclaim([newMessage(record.id)]);
      expect(handoff.untaken).toBe(1);
      expect(handoff.rows[0]!.claimedBy).toBeNull();
      handoff.failed();
    } finally {
      await dispatcher?.stop(50);
      dispatcher = undefined;
      await slow.close();
    }
  });

  it('stopped between the offer and the commit: the claims are given back, nothing is sent', async () => {
    const { endpointId, d } = await readyForHandOff();
    const message = newMessage(endpointId);
    const handoff = d.preclaim([message]);
    await d.stop(50);
    await bed.store.outbox.enqueue(handoff.rows);
    handoff.committed();
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.claimedBy === null, 3000, 'claim released');
    expect((await bed.store.outbox.get(message.id))!.status).toBe('pending');
    expect(receiver.deliveries).toHaveLength(0);
    // A stopped dispatcher takes nothing.
    expect(d.preclaim([newMessage(endpointId)]).untaken).toBe(1);
  });

  it('takes nothing for an endpoint it does not know or that is disabled', async () => {
    const disabled = await createEndpoint(bed, clock, { url: receiver.url, enabled: false });
    const enabled = await createEndpoint(bed, clock, { url: receiver.url });
    dispatcher = startDispatcher(bed, clock, MINUTE_POLL);
    await handOffReady(dispatcher, enabled.record.id);
    const handoff = dispatcher.preclaim([newMessage(disabled.record.id), newMessage('ep_unknown')]);
    expect(handoff.untaken).toBe(2);
    expect(handoff.rows.every((m) => m.claimedBy === null)).toBe(true);
    handoff.failed();
  });
});
