/**
 * Revenue milestones (DESIGN section 6): the configuration parser, and `revenue.milestone` end to
 * end: the event is written in the transaction of the billing notice or pixel whose revenue
 * passes the milestone, so the receiver gets it at once (no timer runs here), exactly once.
 * The store side (both backends, concurrent nodes) is `test/contract/revenue-store-contract.ts`.
 */
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REVENUE_MILESTONES_MICROS, parseMilestones } from '../../src/reporting/milestones.js';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startFakeReceiver, type FakeReceiver } from '../fakes/fake-receiver.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

describe('parseMilestones', () => {
  it('parses comma-separated decimal amounts to sorted, unique micros', () => {
    expect(parseMilestones('100,1000,10000,100000')).toEqual([...DEFAULT_REVENUE_MILESTONES_MICROS]);
    expect(parseMilestones(' 2500.50 , 1, 1.000001 ,1')).toEqual([1_000_000, 1_000_001, 2_500_500_000]);
    expect(parseMilestones('')).toEqual([]);
    expect(parseMilestones('  ')).toEqual([]);
  });

  it('throws on junk, naming the entry', () => {
    for (const junk of ['abc', '100,,200', '-5', '0', '1e3', '1.0000001', '100 USD', '0.0']) {
      expect(() => parseMilestones(junk), junk).toThrow(/revenue milestones/);
    }
    expect(() => parseMilestones('10,x')).toThrow(/"x"/);
  });
});

describe('revenue.milestone through the exchange', () => {
  let dsp: FakeDsp;
  let receiver: FakeReceiver;
  let ex: TestExchange;
  let secret: string;

  beforeAll(async () => {
    // 4.00 CPM, first price: 0.004 USD of net revenue per impression.
    dsp = await startFakeDsp(bidEveryImp({ price: 4 }));
    receiver = await startFakeReceiver();
    ex = await startTestExchange({
      partners: [{ name: 'dsp', endpoint: dsp.url }],
      // The periodic reporting tasks are pushed far out: nothing but the notice itself may send the event.
      config: {
        webhooks: { allowPrivateTargets: true, retryScheduleMs: [0, 50] },
        reporting: { revenueMilestones: [0.004, 0.01], checkIntervalMs: 3_600_000, alertIntervalMs: 3_600_000 },
      },
    });
    const created = await ex.admin('POST', '/v1/webhook-endpoints', { url: `${receiver.url}/hooks`, events: ['revenue.milestone'] });
    expect(created.status).toBe(201);
    secret = created.json().secret;
  });
  afterAll(async () => {
    await ex?.close();
    await receiver?.close();
    await dsp?.close();
  });

  /** Wins one auction of `imps` imps and fires each bid's impression pixel; answers the bids. */
  async function sellImpressions(imps: number): Promise<void> {
    const res = await ex.bid({
      id: `ms-${imps}-${Date.now()}`,
      imp: Array.from({ length: imps }, (_, i) => ({ id: String(i + 1), banner: { w: 300, h: 250 } })),
      site: { domain: 'pub.example', publisher: { id: 'p' } },
      tmax: 300,
    });
    expect(res.status).toBe(200);
    for (const bid of res.json().seatbid.flatMap((s: { bid: unknown[] }) => s.bid) as Array<{ adm: string; burl: string; price: number }>) {
      const pixel = /<img src="([^"]+)"/.exec(bid.adm)![1]!.replace(/&amp;/g, '&');
      await (await request(pixel)).body.dump();
      // The billing notice after the pixel is a repeat: no revenue twice.
      await (await request(bid.burl.replace('${AUCTION_PRICE}', String(bid.price)))).body.dump();
    }
  }

  const milestones = () =>
    receiver.deliveries.filter((d) => d.path.endsWith('/revenue-milestone')).map((d) => new Webhook(secret).verify(d.body, d.headers as Record<string, string>) as Record<string, unknown>);

  it('is delivered right after the notice that passes it, once, with the running total', async () => {
    await sellImpressions(1);
    await receiver.waitForDeliveries(1);
    expect(milestones()).toEqual([
      { event: 'revenue.milestone', publisher_id: ex.publisherId, milestone: 0.004, revenue_total: 0.004, currency: 'USD', timestamp: expect.stringMatching(/Z$/) },
    ]);
    // Two more impressions (0.012 in all) pass 0.01: one more event, none repeated.
    await sellImpressions(2);
    await receiver.waitForDeliveries(2);
    await new Promise((r) => setTimeout(r, 200));
    expect(milestones().map((m) => [m.milestone, m.revenue_total])).toEqual([
      [0.004, 0.004],
      [0.01, 0.012],
    ]);
    expect(await ex.runtime.store.notices.revenueTotal(ex.publisherId)).toBe(12_000);
  });
});
