import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { startFakeReceiver, type FakeReceiver } from '../fakes/fake-receiver.js';
import { createEndpoint, enqueueMessage, openTestBed, pause, startDispatcher, waitUntil, type TestBed } from './helpers.js';

let clock: ManualClock;
let bed: TestBed;
let slow: FakeReceiver;
let fast: FakeReceiver;
let dispatcher: WebhookDispatcher | undefined;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  bed = await openTestBed(clock);
  slow = await startFakeReceiver({ respond: () => ({ status: 200, delayMs: 2000 }) });
  fast = await startFakeReceiver();
});

afterEach(async () => {
  await dispatcher?.stop(50);
  dispatcher = undefined;
  await slow.close();
  await fast.close();
  await bed.dispose();
});

describe('per-endpoint concurrency', () => {
  it('a slow endpoint (answers after 2 s) holds at most its cap and does not delay a fast one', async () => {
    const slowEndpoint = await createEndpoint(bed, clock, { url: slow.url });
    const fastEndpoint = await createEndpoint(bed, clock, { url: fast.url });
    // The slow endpoint's messages are older, so they are first in line.
    const slowMessages = [];
    for (let i = 0; i < 6; i++) slowMessages.push(await enqueueMessage(bed, clock, slowEndpoint.record.id, { createdAtMs: clock.now() - 1000 }));
    const fastMessages = [];
    for (let i = 0; i < 3; i++) fastMessages.push(await enqueueMessage(bed, clock, fastEndpoint.record.id));
    dispatcher = startDispatcher(bed, clock, { perEndpointConcurrency: 2, batchSize: 4 });

    await fast.waitForDeliveries(3);
    for (const m of fastMessages) {
      await waitUntil(async () => (await bed.store.outbox.get(m.id))?.status === 'delivered', 1500, `fast ${m.id} delivered`);
    }
    // Every fast message went out while the slow endpoint had not answered once.
    for (const m of slowMessages) expect((await bed.store.outbox.get(m.id))!.status).toBe('pending');
    expect(slow.deliveries.length).toBe(2);
    // The rest wait in this node's bounded local queue: still claimed (no other node sends them,
    // no claim/release churn per attempt), but not sent while the endpoint has no free slot.
    const claimed = (await Promise.all(slowMessages.map((m) => bed.store.outbox.get(m.id)))).filter((m) => m!.claimedBy !== null);
    expect(claimed).toHaveLength(6);
    await new Promise((r) => setTimeout(r, 200));
    expect(slow.deliveries.length).toBe(2);
  });
});

describe('stop()', () => {
  it('waits up to its grace, then releases the claims still held, recording nothing for them', async () => {
    const { record } = await createEndpoint(bed, clock, { url: slow.url });
    const message = await enqueueMessage(bed, clock, record.id);
    dispatcher = startDispatcher(bed, clock);
    await slow.waitForDeliveries(1);
    expect((await bed.store.outbox.get(message.id))!.claimedBy).toBe('node-test');

    await dispatcher.stop(100);
    expect(dispatcher.running()).toBe(false);
    expect(await bed.store.outbox.get(message.id)).toMatchObject({ status: 'pending', attempts: 0, claimedBy: null, claimExpiresAtMs: null });
    expect(await bed.store.outbox.attemptsFor(message.id)).toEqual([]);

    // Stopped means stopped: nothing is claimed afterwards.
    const later = await enqueueMessage(bed, clock, record.id);
    dispatcher.notify();
    await pause(100);
    expect((await bed.store.outbox.get(later.id))!.claimedBy).toBeNull();
    expect(() => dispatcher!.start()).toThrow(/stopped/);
  });

  it('lets an attempt that finishes within the grace be recorded', async () => {
    slow.setRespond(() => ({ status: 200, delayMs: 200 }));
    const { record } = await createEndpoint(bed, clock, { url: slow.url });
    const message = await enqueueMessage(bed, clock, record.id);
    dispatcher = startDispatcher(bed, clock);
    await slow.waitForDeliveries(1);
    await dispatcher.stop(5000);
    expect(await bed.store.outbox.get(message.id)).toMatchObject({ status: 'delivered', claimedBy: null });
    expect(await bed.store.outbox.attemptsFor(message.id)).toHaveLength(1);
  });
});

describe('claims at start', () => {
  it('releaseAllClaimsAtStart frees claims left by a previous process before claiming', async () => {
    const { record } = await createEndpoint(bed, clock, { url: fast.url });
    const message = await enqueueMessage(bed, clock, record.id);
    // A crashed node's claim, with a lease far in the future.
    await bed.store.outbox.claimDue({ owner: 'crashed-node', nowMs: clock.now(), limit: 10, leaseMs: 3_600_000 });
    expect((await bed.store.outbox.get(message.id))!.claimedBy).toBe('crashed-node');

    dispatcher = startDispatcher(bed, clock, { releaseAllClaimsAtStart: true });
    await fast.waitForDeliveries(1);
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'delivered', 5000, 'delivered');
  });
});

describe('store failures', () => {
  it('never throws out of the loop and resumes when the store answers again', async () => {
    const { record } = await createEndpoint(bed, clock, { url: fast.url });
    const message = await enqueueMessage(bed, clock, record.id);
    const realClaim = bed.store.outbox.claimDue.bind(bed.store.outbox);
    let failures = 0;
    const outbox = Object.create(bed.store.outbox) as typeof bed.store.outbox;
    outbox.claimDue = async (options) => {
      if (failures < 2) {
        failures += 1;
        throw new Error('database is locked');
      }
      return realClaim(options);
    };
    dispatcher = startDispatcher({ ...bed, store: Object.assign(Object.create(bed.store), { outbox }) }, clock, { pollIntervalMs: 10 });
    await fast.waitForDeliveries(1);
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'delivered', 5000, 'delivered');
    expect(failures).toBe(2);
    expect(dispatcher.running()).toBe(true);
  });
});
