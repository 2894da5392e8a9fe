import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { deliveryUrl } from '../../src/webhooks/dispatcher.js';
import { generateWebhookSecret } from '../../src/webhooks/signer.js';
import { startFakeReceiver, type FakeReceiver } from '../fakes/fake-receiver.js';
import { createEndpoint, enqueueMessage, metricValue, openTestBed, pause, startDispatcher, waitUntil, type TestBed } from './helpers.js';

let clock: ManualClock;
let bed: TestBed;
let receiver: FakeReceiver;
let dispatcher: WebhookDispatcher | undefined;

beforeEach(async () => {
  // Real wall time at the start: standardwebhooks checks the timestamp against Date.now() (+-5 min).
  clock = new ManualClock(Date.now());
  bed = await openTestBed(clock);
  receiver = await startFakeReceiver();
});

afterEach(async () => {
  await dispatcher?.stop(100);
  dispatcher = undefined;
  await receiver.close();
  await bed.dispose();
});

const headersOf = (h: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));

describe('deliveryUrl', () => {
  it.each([
    ['https://partner.example/hooks', 'auction.complete', 'https://partner.example/hooks/webhooks/auction-complete'],
    ['https://partner.example/hooks/', 'report.daily', 'https://partner.example/hooks/webhooks/report-daily'],
    ['https://partner.example', 'webhook.test', 'https://partner.example/webhooks/webhook-test'],
    ['https://partner.example//a//', 'billing.notice', 'https://partner.example//a/webhooks/billing-notice'],
    ['https://partner.example/h?token=1', 'alert.threshold', 'https://partner.example/h/webhooks/alert-threshold?token=1'],
  ])('%s + %s', (url, kind, expected) => {
    expect(deliveryUrl(url, kind)).toBe(expected);
  });
});

describe('webhook dispatcher deliveries', () => {
  it('delivers signed, with the stored bytes, to <url>/webhooks/<kind>, verified by standardwebhooks', async () => {
    const { record, secret, apiKey } = await createEndpoint(bed, clock, { url: `${receiver.url}/hooks/` });
    const message = await enqueueMessage(bed, clock, record.id, { eventKind: 'auction.complete' });
    receiver.setRespond(() => ({ status: 200, body: 'thanks' }));
    dispatcher = startDispatcher(bed, clock);

    const [got] = await receiver.waitForDeliveries(1);
    expect(got!.method).toBe('POST');
    expect(got!.path).toBe('/hooks/webhooks/auction-complete');
    expect(got!.body).toBe(message.body);
    expect(got!.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['webhook-id']).toBe(message.id);
    expect(got!.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect((got!.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(new Webhook(secret).verify(got!.body, headersOf(got!.headers))).toEqual(JSON.parse(message.body));
    expect(() => new Webhook(generateWebhookSecret()).verify(got!.body, headersOf(got!.headers))).toThrow();

    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'delivered', 5000, 'delivered');
    const stored = await bed.store.outbox.get(message.id);
    expect(stored).toMatchObject({ status: 'delivered', attempts: 1, deliveredAtMs: clock.now(), claimedBy: null, lastError: null });
    const attempts = await bed.store.outbox.attemptsFor(message.id);
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, error: null, responseExcerpt: 'thanks', nextAttemptAtMs: null, startedAtMs: clock.now() }),
    ]);
    await waitUntil(async () => (await bed.store.webhookEndpoints.get(record.id))?.lastSuccessAtMs === clock.now(), 2000, 'lastSuccessAtMs');
    expect(await metricValue(bed.registry, 'adx_webhook_deliveries_total{outcome="delivered"}')).toBe(1);
    expect(await metricValue(bed.registry, 'adx_webhook_attempt_seconds_count')).toBe(1);
  });

  it('retries after 500 with the same webhook-id and bytes, re-signed with a fresh timestamp, at the scheduled time', async () => {
    const { record, secret } = await createEndpoint(bed, clock, { url: receiver.url });
    const message = await enqueueMessage(bed, clock, record.id);
    let calls = 0;
    receiver.setRespond(() => (++calls < 3 ? { status: 500, body: 'x'.repeat(5000) } : { status: 204 }));
    dispatcher = startDispatcher(bed, clock, { retryScheduleMs: [0, 3000, 3000] });

    await receiver.waitForDeliveries(1);
    await waitUntil(async () => (await bed.store.outbox.attemptsFor(message.id)).length === 1, 5000, 'first attempt recorded');
    const firstEnd = clock.now();
    // Not due yet: nothing more is sent however often the dispatcher wakes.
    dispatcher.notify();
    await pause(150);
    expect(receiver.deliveries).toHaveLength(1);

    clock.advance(3000);
    dispatcher.notify();
    await receiver.waitForDeliveries(2);
    await waitUntil(async () => (await bed.store.outbox.attemptsFor(message.id)).length === 2, 5000, 'second attempt recorded');
    clock.advance(3000);
    dispatcher.notify();
    await receiver.waitForDeliveries(3);
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'delivered', 5000, 'delivered');

    const ids = receiver.deliveries.map((d) => d.headers['webhook-id']);
    expect(new Set(ids)).toEqual(new Set([message.id]));
    expect(receiver.deliveries.every((d) => d.body === message.body)).toBe(true);
    const stamps = receiver.deliveries.map((d) => Number(d.headers['webhook-timestamp']));
    expect(stamps[1]! - stamps[0]!).toBe(3);
    expect(stamps[2]! - stamps[1]!).toBe(3);
    for (const d of receiver.deliveries) expect(new Webhook(secret).verify(d.body, headersOf(d.headers))).toBeTruthy();

    const attempts = await bed.store.outbox.attemptsFor(message.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.nextAttemptAtMs])).toEqual([
      [1, 500, firstEnd + 3000],
      [2, 500, firstEnd + 6000],
      [3, 204, null],
    ]);
    expect(attempts[0]!.error).toBe('HTTP 500');
    expect(Buffer.byteLength(attempts[0]!.responseExcerpt!)).toBe(1024);
    expect(await metricValue(bed.registry, 'adx_webhook_deliveries_total{outcome="retry"}')).toBe(2);
    // The endpoint was marked failing by the first 500 and healthy again after the 204.
    await waitUntil(async () => (await bed.store.webhookEndpoints.get(record.id))?.failingSinceMs === null, 2000, 'failingSinceMs cleared');
  });

  it('marks the message failed after the last attempt', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url });
    const message = await enqueueMessage(bed, clock, record.id);
    receiver.setRespond(() => ({ status: 503 }));
    dispatcher = startDispatcher(bed, clock, { retryScheduleMs: [0, 100] });

    await waitUntil(async () => (await bed.store.outbox.attemptsFor(message.id)).length === 1, 5000, 'first attempt');
    clock.advance(200);
    dispatcher.notify();
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'failed', 5000, 'failed');
    const attempts = await bed.store.outbox.attemptsFor(message.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.nextAttemptAtMs === null])).toEqual([
      [1, 503, false],
      [2, 503, true],
    ]);
    expect(await bed.store.outbox.get(message.id)).toMatchObject({ status: 'failed', attempts: 2, lastError: 'HTTP 503', claimedBy: null });
    clock.advance(60_000);
    dispatcher.notify();
    await pause(100);
    expect(receiver.deliveries).toHaveLength(2);
    expect(await metricValue(bed.registry, 'adx_webhook_deliveries_total{outcome="failed"}')).toBe(1);
  });

  it('410 fails the message and disables the endpoint; its other messages wait unsent', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url });
    const first = await enqueueMessage(bed, clock, record.id);
    receiver.setRespond(() => ({ status: 410 }));
    dispatcher = startDispatcher(bed, clock, { perEndpointConcurrency: 1 });

    await waitUntil(async () => (await bed.store.outbox.get(first.id))?.status === 'failed', 5000, 'failed');
    await waitUntil(async () => (await bed.store.webhookEndpoints.get(record.id))?.enabled === false, 2000, 'disabled');
    expect(await bed.store.webhookEndpoints.get(record.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect((await bed.store.outbox.attemptsFor(first.id))[0]).toMatchObject({ statusCode: 410, nextAttemptAtMs: null });

    const later = await enqueueMessage(bed, clock, record.id);
    dispatcher.notify();
    await pause(150);
    expect(receiver.deliveries).toHaveLength(1);
    expect(await bed.store.outbox.get(later.id)).toMatchObject({ status: 'pending', attempts: 0, claimedBy: null });
    expect(await metricValue(bed.registry, 'adx_webhook_deliveries_total{outcome="gone"}')).toBe(1);
  });

  it('a disabled endpoint is not sent to until it is enabled again', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url, enabled: false });
    const message = await enqueueMessage(bed, clock, record.id);
    dispatcher = startDispatcher(bed, clock);
    await pause(150);
    expect(receiver.deliveries).toHaveLength(0);
    expect(await bed.store.outbox.get(message.id)).toMatchObject({ status: 'pending', claimedBy: null, attempts: 0 });

    await bed.store.webhookEndpoints.update(record.id, { enabled: true });
    clock.advance(1500); // past the endpoint cache's TTL
    dispatcher.notify();
    await receiver.waitForDeliveries(1);
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.status === 'delivered', 5000, 'delivered');
  });

  it('honours Retry-After within [scheduled, 2 x scheduled]', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url });
    const inRange = await enqueueMessage(bed, clock, record.id);
    const capped = await enqueueMessage(bed, clock, record.id);
    receiver.setRespond((req) => ({ status: 503, headers: { 'retry-after': req.headers['webhook-id'] === inRange.id ? '3' : '3600' } }));
    dispatcher = startDispatcher(bed, clock, { retryScheduleMs: [0, 2000, 2000] });

    await waitUntil(async () => (await bed.store.outbox.get(capped.id))?.attempts === 1 && (await bed.store.outbox.get(inRange.id))?.attempts === 1, 5000, 'first attempts');
    const t0 = clock.now();
    expect((await bed.store.outbox.get(inRange.id))!.nextAttemptAtMs).toBe(t0 + 3000);
    expect((await bed.store.outbox.get(capped.id))!.nextAttemptAtMs).toBe(t0 + 4000);

    receiver.setRespond(() => ({ status: 200 }));
    clock.advance(2500); // past the schedule's 2 s, before Retry-After's 3 s
    dispatcher.notify();
    await pause(150);
    expect(receiver.deliveries).toHaveLength(2);
    clock.advance(600);
    dispatcher.notify();
    await waitUntil(async () => (await bed.store.outbox.get(inRange.id))?.status === 'delivered', 5000, 'in-range delivered');
    expect((await bed.store.outbox.get(capped.id))!.status).toBe('pending');
    clock.advance(1000);
    dispatcher.notify();
    await waitUntil(async () => (await bed.store.outbox.get(capped.id))?.status === 'delivered', 5000, 'capped delivered');
  });

  it('a 3xx is a failure and its Location is not followed', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url });
    const message = await enqueueMessage(bed, clock, record.id);
    receiver.setRespond(() => ({ status: 307, headers: { location: `${receiver.url}/elsewhere` } }));
    dispatcher = startDispatcher(bed, clock);

    await waitUntil(async () => (await bed.store.outbox.attemptsFor(message.id)).length === 1, 5000, 'attempt');
    await pause(100);
    expect(receiver.deliveries.map((d) => d.path)).toEqual(['/webhooks/auction-complete']);
    const [attempt] = await bed.store.outbox.attemptsFor(message.id);
    expect(attempt).toMatchObject({ statusCode: 307, error: expect.stringMatching(/redirect/) });
    expect(await bed.store.outbox.get(message.id)).toMatchObject({ status: 'pending', attempts: 1 });
  });

  it('during a rotation signs with both secrets, each verifying on its own; not after the old one expires', async () => {
    const oldSecret = generateWebhookSecret();
    const { record, secret } = await createEndpoint(bed, clock, {
      url: receiver.url,
      previousSecret: oldSecret,
      previousSecretExpiresAtMs: clock.now() + 24 * 3600_000,
    });
    const expired = await createEndpoint(bed, clock, { url: `${receiver.url}/expired`, previousSecret: oldSecret, previousSecretExpiresAtMs: clock.now() - 1 });
    await enqueueMessage(bed, clock, record.id);
    await enqueueMessage(bed, clock, expired.record.id);
    dispatcher = startDispatcher(bed, clock);

    await receiver.waitForDeliveries(2);
    const rotating = receiver.deliveries.find((d) => !d.path.startsWith('/expired'))!;
    const single = receiver.deliveries.find((d) => d.path.startsWith('/expired'))!;
    const entries = (rotating.headers['webhook-signature'] as string).split(' ');
    expect(entries).toHaveLength(2);
    expect(new Webhook(secret).verify(rotating.body, headersOf(rotating.headers))).toBeTruthy();
    expect(new Webhook(oldSecret).verify(rotating.body, headersOf(rotating.headers))).toBeTruthy();
    // Each entry verifies with its own secret alone.
    expect(new Webhook(secret).verify(rotating.body, { ...headersOf(rotating.headers), 'webhook-signature': entries[0]! })).toBeTruthy();
    expect(new Webhook(oldSecret).verify(rotating.body, { ...headersOf(rotating.headers), 'webhook-signature': entries[1]! })).toBeTruthy();
    expect((single.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(() => new Webhook(oldSecret).verify(single.body, headersOf(single.headers))).toThrow();
  });

  it('disables an endpoint failing without a success for longer than disableAfterFailingMs', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url });
    const message = await enqueueMessage(bed, clock, record.id);
    receiver.setRespond(() => ({ status: 500 }));
    dispatcher = startDispatcher(bed, clock, { retryScheduleMs: [0, 10, 10, 10], disableAfterFailingMs: 60_000 });

    await waitUntil(async () => (await bed.store.webhookEndpoints.get(record.id))?.failingSinceMs === clock.now(), 5000, 'failing since');
    clock.advance(30_000);
    dispatcher.notify();
    await waitUntil(async () => (await bed.store.outbox.get(message.id))?.attempts === 2, 5000, 'second attempt');
    expect((await bed.store.webhookEndpoints.get(record.id))!.enabled).toBe(true);
    clock.advance(31_000);
    dispatcher.notify();
    await waitUntil(async () => (await bed.store.webhookEndpoints.get(record.id))?.enabled === false, 5000, 'disabled');
    expect(await bed.store.webhookEndpoints.get(record.id)).toMatchObject({ disabledReason: 'failing' });
    expect(await bed.store.outbox.get(message.id)).toMatchObject({ status: 'pending', attempts: 3 });
  });
});

describe('SSRF guard in the dispatcher (allowPrivateTargets = false)', () => {
  it('refuses a name resolving to loopback at connect time, and private literals and localhost before connecting', async () => {
    // No outside DNS here: a stub resolver plays a public-looking name that resolves to loopback.
    const resolveAll = async (hostname: string) => {
      if (hostname === 'hooks.partner.test') return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    const byName = await createEndpoint(bed, clock, { url: `https://hooks.partner.test:${receiver.port}/` });
    const byLocalhost = await createEndpoint(bed, clock, { url: `https://localhost:${receiver.port}/` });
    const byLiteral = await createEndpoint(bed, clock, { url: `https://127.0.0.1:${receiver.port}/` });
    const plainHttp = await createEndpoint(bed, clock, { url: `http://127.0.0.1:${receiver.port}/` });
    const m1 = await enqueueMessage(bed, clock, byName.record.id);
    const m2 = await enqueueMessage(bed, clock, byLiteral.record.id);
    const m3 = await enqueueMessage(bed, clock, plainHttp.record.id);
    const m4 = await enqueueMessage(bed, clock, byLocalhost.record.id);
    dispatcher = startDispatcher(bed, clock, { allowPrivateTargets: false, resolveAll });

    for (const m of [m1, m2, m3, m4]) {
      await waitUntil(async () => (await bed.store.outbox.attemptsFor(m.id)).length === 1, 5000, `attempt of ${m.id}`);
    }
    const [a1] = await bed.store.outbox.attemptsFor(m1.id);
    const [a2] = await bed.store.outbox.attemptsFor(m2.id);
    const [a3] = await bed.store.outbox.attemptsFor(m3.id);
    const [a4] = await bed.store.outbox.attemptsFor(m4.id);
    expect(a1).toMatchObject({ statusCode: null, error: expect.stringMatching(/hooks\.partner\.test resolves to 127\.0\.0\.1, which is not a public address/) });
    expect(a4).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: localhost/) });
    expect(a2).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: .*not a public address/) });
    expect(a3).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: .*https/) });
    expect(receiver.deliveries).toHaveLength(0);
    expect(await bed.store.outbox.get(m1.id)).toMatchObject({ status: 'pending', attempts: 1 });
  });
});

describe('webhook metrics', () => {
  it('reports the outbox depth and how late the oldest due message is', async () => {
    const { record } = await createEndpoint(bed, clock, { url: receiver.url });
    await enqueueMessage(bed, clock, record.id, { createdAtMs: clock.now() - 30_000 });
    await enqueueMessage(bed, clock, record.id);
    expect(await metricValue(bed.registry, 'adx_outbox_depth')).toBe(2);
    expect(await metricValue(bed.registry, 'adx_outbox_oldest_due_age_seconds')).toBe(30);
  });
});
