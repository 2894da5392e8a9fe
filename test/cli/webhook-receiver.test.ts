import { createHmac, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../src/cli/webhook-receiver.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;

/** Signs per Standard Webhooks v1 by hand: base64 HMAC-SHA256(base64-decoded secret, `id.ts.body`). */
function sign(id: string, timestampSeconds: number, body: string, key = secret): string {
  const mac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64')).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

async function deliver(
  receiver: WebhookReceiver,
  options: { id: string; body: string; path?: string; signature?: string; timestampSeconds?: number; headers?: Record<string, string> },
): Promise<number> {
  const ts = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const res = await fetch(`${receiver.url}${options.path ?? '/webhooks/auction-complete'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': options.id,
      'webhook-timestamp': String(ts),
      'webhook-signature': options.signature ?? sign(options.id, ts, options.body),
      ...options.headers,
    },
    body: options.body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe('webhook-receiver', () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('verifies a hand-signed delivery (204), refuses a bad signature (400), dedupes on webhook-id', async () => {
    const lines: string[] = [];
    receiver = await startWebhookReceiver({ secret, print: (line) => lines.push(line) });
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const body = '{"event":"auction.complete","auction_id":"auc_1"}';

    expect(await deliver(receiver, { id: 'msg_1', body })).toBe(204);
    // The same message again (an at-least-once retry): received, answered 204, not verified twice.
    expect(await deliver(receiver, { id: 'msg_1', body })).toBe(204);
    // Wrong key, altered body, unknown version, stale timestamp: 400.
    const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const ts = Math.floor(Date.now() / 1000);
    expect(await deliver(receiver, { id: 'msg_2', body, signature: sign('msg_2', ts, body, otherSecret), timestampSeconds: ts })).toBe(400);
    expect(await deliver(receiver, { id: 'msg_3', body: `${body} `, signature: sign('msg_3', ts, body), timestampSeconds: ts })).toBe(400);
    expect(await deliver(receiver, { id: 'msg_4', body, signature: sign('msg_4', ts, body).replace('v1,', 'v2,'), timestampSeconds: ts })).toBe(400);
    const old = ts - 600;
    expect(await deliver(receiver, { id: 'msg_5', body, signature: sign('msg_5', old, body), timestampSeconds: old })).toBe(400);
    // Rotation: one good signature among several is enough.
    expect(await deliver(receiver, { id: 'msg_6', body, path: '/hooks/webhooks/billing-notice', signature: `${sign('msg_6', ts, body, otherSecret)} ${sign('msg_6', ts, body)}`, timestampSeconds: ts })).toBe(204);

    expect(receiver.stats()).toEqual({ received: 7, verified: 2, failed: 4, duplicates: 1 });
    expect(receiver.deliveries.filter((d) => d.verified)).toEqual([
      { id: 'msg_1', kind: 'auction-complete', verified: true, body },
      { id: 'msg_6', kind: 'billing-notice', verified: true, body },
    ]);
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(/^verified msg_1 auction-complete \d+B$/);
    expect(lines[1]).toMatch(/^duplicate msg_1 /);
    expect(lines[2]).toMatch(/^failed msg_2 /);

    const stats = await fetch(`${receiver.url}/stats`);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual({ received: 7, verified: 2, failed: 4, duplicates: 1 });
  });

  it('refuses deliveries without the api key when one is required (401)', async () => {
    receiver = await startWebhookReceiver({ secret, apiKey: 'adxw_key' });
    const body = '{"event":"webhook.test"}';
    expect(await deliver(receiver, { id: 'msg_1', body })).toBe(401);
    expect(await deliver(receiver, { id: 'msg_1', body, headers: { authorization: 'Bearer other' } })).toBe(401);
    expect(await deliver(receiver, { id: 'msg_1', body, headers: { authorization: 'Bearer adxw_key' } })).toBe(204);
    expect(receiver.stats()).toMatchObject({ received: 3, verified: 1, failed: 2 });
  });

  it('refuses a secret that is not base64', async () => {
    await expect(startWebhookReceiver({ secret: 'whsec_' })).rejects.toThrow();
  });
});
