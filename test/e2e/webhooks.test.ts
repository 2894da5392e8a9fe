/**
 * Webhooks end to end through the real exchange (DESIGN section 6): an endpoint created through
 * the admin API receives `auction.complete` for a won auction, `billing.notice` for the first
 * billing notice (once), and `webhook.test` on request — each verified with the
 * `standardwebhooks` package, as a partner would.
 */
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startFakeReceiver, type FakeReceiver } from '../fakes/fake-receiver.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const bidRequest = {
  id: 'wh-1',
  imp: [
    { id: 'a', banner: { w: 300, h: 250 } },
    { id: 'b', banner: { w: 728, h: 90 } },
  ],
  site: { domain: 'pub.example', publisher: { id: 'p' } },
  tmax: 200,
  at: 2, // second price plus, so the clearing price differs from the bid
};

describe('webhooks through the exchange', () => {
  let dsp: FakeDsp;
  let receiver: FakeReceiver;
  let ex: TestExchange;
  let secret: string;
  let endpointApiKey: string;
  let endpointId: string;

  beforeAll(async () => {
    dsp = await startFakeDsp((body: any) => ({
      status: 200,
      body: {
        id: body.id,
        cur: 'EUR',
        seatbid: [
          {
            seat: 'eu-seat',
            bid: body.imp.map((imp: any, i: number) => ({ id: `bid-${i}`, impid: imp.id, price: 2 + i, adm: '<i>ad</i>', crid: 'c', w: imp.banner.w, h: imp.banner.h })),
          },
        ],
      },
    }));
    receiver = await startFakeReceiver();
    ex = await startTestExchange({
      partners: [{ name: 'eu', endpoint: dsp.url, currency: 'EUR' }],
      config: { webhooks: { allowPrivateTargets: true, retryScheduleMs: [0, 50, 50] } },
    });
    const created = await ex.admin('POST', '/v1/webhook-endpoints', { url: `${receiver.url}/hooks`, events: ['auction.complete', 'billing.notice'] });
    expect(created.status).toBe(201);
    secret = created.json().secret;
    endpointApiKey = created.json().api_key;
    endpointId = created.json().id;
    expect(secret).toMatch(/^whsec_/);
  });
  afterAll(async () => {
    await ex?.close();
    await receiver?.close();
    await dsp?.close();
  });

  function verify(delivery: { headers: Record<string, unknown>; body: string }) {
    return new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>;
  }

  let response: any;

  it('delivers one signed auction.complete per won imp, after the bid response was committed', async () => {
    const res = await ex.bid(bidRequest);
    expect(res.status).toBe(200);
    response = res.json();
    const deliveries = await receiver.waitForDeliveries(2);
    const events = deliveries.map((d) => ({ d, payload: verify(d) }));
    for (const { d, payload } of events) {
      expect(d.path).toBe('/hooks/webhooks/auction-complete');
      expect(d.headers.authorization).toBe(`Bearer ${endpointApiKey}`);
      expect(d.headers['content-type']).toMatch(/^application\/json/);
      expect(d.headers['webhook-id']).toMatch(/^msg_/);
      expect(payload.event).toBe('auction.complete');
      expect(payload.currency).toBe('EUR');
      expect(payload.publisher_id).toBe(ex.publisherId);
      expect(payload.seat).toBe(ex.partnerIds[0]);
      expect(payload.request_id).toBe('wh-1');
      expect(String(payload.timestamp)).toMatch(/Z$/);
    }
    const byImp = Object.fromEntries(events.map((e) => [e.payload.imp_id, e.payload]));
    expect(byImp.a!.winning_bid).toBe(2);
    expect(byImp.b!.winning_bid).toBe(3);
    expect(byImp.a!.clearing_price).toBe(0.008628); // second price, one bid, no floor: 0.01 USD = 0.008628 EUR (bundled rate)
    const bidIds = response.seatbid[0].bid.map((b: any) => b.id).sort();
    expect(events.map((e) => e.payload.bid_id).sort()).toEqual(bidIds);
    expect(new Set(events.map((e) => e.d.headers['webhook-id'])).size).toBe(2);
  });

  it('delivers billing.notice once for the first of billing notice or pixel', async () => {
    const bid = response.seatbid[0].bid[0];
    const before = receiver.deliveries.length;
    const burl = bid.burl.replace('${AUCTION_PRICE}', String(bid.price));
    await (await request(burl)).body.dump();
    const pixel = /<img src="([^"]+)"/.exec(bid.adm)![1]!.replace(/&amp;/g, '&');
    await (await request(pixel)).body.dump();
    await (await request(burl)).body.dump();
    const deliveries = await receiver.waitForDeliveries(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    const billing = receiver.deliveries.filter((d) => d.path.endsWith('/billing-notice'));
    expect(billing).toHaveLength(1);
    const payload = verify(billing[0]!);
    expect(payload).toMatchObject({ event: 'billing.notice', bid_id: bid.id, publisher_id: ex.publisherId, currency: 'USD', price: bid.price });
    expect(deliveries.length).toBeGreaterThan(before);
  });

  it('sends webhook.test on request and records every attempt', async () => {
    const test = await ex.admin('POST', `/v1/webhook-endpoints/${endpointId}/test`);
    expect(test.status).toBe(202);
    const messageId = test.json().message_id;
    const until = Date.now() + 5000;
    while (!receiver.deliveries.some((d) => d.headers['webhook-id'] === messageId)) {
      if (Date.now() > until) throw new Error('webhook.test not delivered');
      await new Promise((r) => setTimeout(r, 20));
    }
    const d = receiver.deliveries.find((x) => x.headers['webhook-id'] === messageId)!;
    expect(d.path).toBe('/hooks/webhooks/webhook-test');
    expect(verify(d)).toMatchObject({ event: 'webhook.test', endpoint_id: endpointId });
    await new Promise((r) => setTimeout(r, 100));
    const log = await ex.admin('GET', `/v1/webhook-endpoints/${endpointId}/deliveries?status=delivered`);
    expect(log.status).toBe(200);
    const entry = log.json().data.find((m: any) => m.id === messageId);
    expect(entry.status).toBe('delivered');
    expect(entry.attempt_log[0].status_code).toBe(200);
  });

  it('retries after a 500 with the same webhook-id and body bytes', async () => {
    let failures = 1;
    receiver.setRespond(() => (failures-- > 0 ? { status: 500, body: 'boom' } : { status: 200 }));
    const before = receiver.deliveries.length;
    const res = await ex.bid({ ...bidRequest, id: 'wh-2', imp: [bidRequest.imp[0]] });
    expect(res.status).toBe(200);
    const deliveries = (await receiver.waitForDeliveries(before + 2)).slice(before);
    expect(deliveries[0]!.headers['webhook-id']).toBe(deliveries[1]!.headers['webhook-id']);
    expect(deliveries[0]!.body).toBe(deliveries[1]!.body);
    verify(deliveries[1]!);
    receiver.setRespond(() => ({ status: 200 }));
  });

  it('a change through the admin API is in effect before the call answers (disable, then nothing is sent)', async () => {
    const patched = await ex.admin('PATCH', `/v1/webhook-endpoints/${endpointId}`, { enabled: false });
    expect(patched.status).toBe(200);
    const before = receiver.deliveries.length;
    expect((await ex.bid({ ...bidRequest, id: 'wh-off' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.deliveries.length).toBe(before);
    expect((await ex.admin('PATCH', `/v1/webhook-endpoints/${endpointId}`, { enabled: true })).status).toBe(200);
  });

  it('report.daily goes through the same signed delivery (POST /v1/reports/daily/deliver)', async () => {
    const created = await ex.admin('POST', '/v1/webhook-endpoints', { url: `${receiver.url}/reports`, events: ['report.daily'] });
    expect(created.status).toBe(201);
    const reportSecret: string = created.json().secret;
    const date = new Date(ex.clock.now()).toISOString().slice(0, 10);
    const deliver = await ex.admin('POST', '/v1/reports/daily/deliver', { date });
    expect(deliver.status).toBe(202);
    const until = Date.now() + 5000;
    let delivery;
    while (!(delivery = receiver.deliveries.find((d) => d.path === '/reports/webhooks/report-daily'))) {
      if (Date.now() > until) throw new Error('report.daily not delivered');
      await new Promise((r) => setTimeout(r, 20));
    }
    const payload = new Webhook(reportSecret).verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({ event: 'report.daily', date, publisher_id: ex.publisherId, currency: 'USD' });
    expect(Number(payload.requests)).toBeGreaterThanOrEqual(3);
    expect(Number(payload.bids)).toBeGreaterThanOrEqual(3);
  });
});
