import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AdxError } from '../../src/domain/errors.js';
import { auctionCompletePayload } from '../../src/events/payloads.js';
import { createWebhookHarness, type WebhookHarness } from '../events/webhook-harness.js';

/** Runs `fn` and answers the AdxError it rejects with (fails the test otherwise). */
async function adxError(fn: () => Promise<unknown>): Promise<AdxError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AdxError);
    return error as AdxError;
  }
  throw new Error('expected an AdxError');
}

const auction = (publisherId: string) =>
  auctionCompletePayload({
    auctionId: 'auc_1', requestId: 'r', impId: '1', bidId: 'bid_1', publisherId, seat: 'dsp_1',
    bidMicros: 1_000_000, clearingMicros: 1_000_000, currency: 'USD', nowMs: 0,
  });

describe('webhook endpoint service', () => {
  let h: WebhookHarness;
  beforeEach(async () => {
    h = await createWebhookHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('makes every change visible to this node\'s emitter before answering', async () => {
    const { publisher } = await h.publishers.create({ name: 'p' });
    expect(h.emitter.messagesFor(auction(publisher.id), publisher.id)).toEqual([]);
    const { endpoint } = await h.service.create({ url: 'http://127.0.0.1:9/h', publisher_id: publisher.id });
    expect(h.emitter.messagesFor(auction(publisher.id), publisher.id).map((m) => m.endpointId)).toEqual([endpoint.id]);
    expect(h.emitter.messagesFor(auction('pub_other'), 'pub_other')).toEqual([]);
    await h.service.update(endpoint.id, { events: ['billing.notice'] });
    expect(h.emitter.messagesFor(auction(publisher.id), publisher.id)).toEqual([]);
    await h.service.update(endpoint.id, { events: [] });
    expect(h.emitter.messagesFor(auction(publisher.id), publisher.id)).toHaveLength(1);
    await h.service.delete(endpoint.id);
    expect(h.emitter.messagesFor(auction(publisher.id), publisher.id)).toEqual([]);
    expect(h.changes.count).toBe(4);
  });

  it('lists every invalid field at once and writes nothing', async () => {
    const error = await adxError(() =>
      h.service.create({ url: 'gopher://x', events: ['nope', 'auction.complete', 3], api_key: 'a b', publisher_id: 'pub_x', enabled: 1, description: 'x'.repeat(501) } as never),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.errors?.map((e) => e.field)).toEqual(['url', 'events[0]', 'events[2]', 'api_key', 'publisher_id', 'enabled', 'description']);
    expect((await adxError(() => h.service.create(null as never))).errors).toEqual([{ field: 'body', message: 'must be an object' }]);
    expect(await h.service.list()).toEqual([]);
    expect(h.changes.count).toBe(0);
  });

  it('drops duplicate event kinds and trims the url', async () => {
    const { endpoint } = await h.service.create({ url: '  http://127.0.0.1:9/h ', events: ['billing.notice', 'billing.notice', 'webhook.test'] });
    expect(endpoint).toMatchObject({ url: 'http://127.0.0.1:9/h', events: ['billing.notice', 'webhook.test'] });
  });

  it('re-enabling clears disabled_reason and the failure run; disabling by hand keeps the reason null', async () => {
    const { endpoint } = await h.service.create({ url: 'http://127.0.0.1:9/h' });
    // The dispatcher disables it after a 410 (written by hand here).
    await h.store.webhookEndpoints.update(endpoint.id, { enabled: false, disabledReason: 'gone', failingSinceMs: 1 });
    h.clock.advance(1000);
    const enabled = await h.service.update(endpoint.id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSinceMs: null, updatedAtMs: h.clock.now() });
    const disabled = await h.service.update(endpoint.id, { enabled: false });
    expect(disabled).toMatchObject({ enabled: false, disabledReason: null });
  });

  it('changes the api key sealed, and an empty patch writes nothing', async () => {
    const { endpoint, apiKey } = await h.service.create({ url: 'http://127.0.0.1:9/h' });
    expect(h.box.open(endpoint.apiKeyCiphertext)).toBe(apiKey);
    h.clock.advance(1000);
    const updated = await h.service.update(endpoint.id, { api_key: 'new-key' });
    expect(h.box.open(updated.apiKeyCiphertext)).toBe('new-key');
    h.clock.advance(1000);
    expect(await h.service.update(endpoint.id, { unknown: 1 } as never)).toEqual(updated);
    expect((await adxError(() => h.service.update('ep_missing', { enabled: true }))).code).toBe('not_found');
    expect((await adxError(() => h.service.get('ep_missing'))).code).toBe('not_found');
  });

  it('keeps one previous secret: a second rotation drops the oldest', async () => {
    const { endpoint, secret: s0 } = await h.service.create({ url: 'http://127.0.0.1:9/h' });
    const { secret: s1, previousExpiresAtMs } = await h.service.rotateSecret(endpoint.id);
    expect(previousExpiresAtMs).toBe(h.clock.now() + 86_400_000);
    h.clock.advance(3_600_000);
    const { secret: s2 } = await h.service.rotateSecret(endpoint.id);
    const record = await h.service.get(endpoint.id);
    expect(h.box.open(record.secretCiphertext)).toBe(s2);
    expect(h.box.open(record.previousSecretCiphertext!)).toBe(s1);
    expect(record.previousSecretExpiresAtMs).toBe(h.clock.now() + 86_400_000);
    expect(new Set([s0, s1, s2]).size).toBe(3);
  });

  it('sends a test event to an endpoint created on another node a moment ago', async () => {
    // Written straight to the store, so this node's emitter has not seen it yet.
    const { endpoint } = await h.service.create({ url: 'http://127.0.0.1:9/h' });
    await h.store.webhookEndpoints.create({ ...endpoint, id: 'ep_elsewhere' });
    const { messageId } = await h.service.test('ep_elsewhere');
    expect(await h.store.outbox.get(messageId)).toMatchObject({ endpointId: 'ep_elsewhere', eventKind: 'webhook.test' });
  });

  it('refuses a non-finite recover time', async () => {
    const { endpoint } = await h.service.create({ url: 'http://127.0.0.1:9/h' });
    expect((await adxError(() => h.service.recover(endpoint.id, Number.NaN))).errors?.[0]?.field).toBe('since');
  });
});
