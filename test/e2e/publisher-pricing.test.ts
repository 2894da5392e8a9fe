/**
 * Publisher pricing end to end (DESIGN sections 4 and 7): the auction type comes from the
 * request's `at` when it is 1 or 2, else from the publisher's `auction_type` (default 1, first
 * price); the publisher's `reserve_price` (CPM in USD) is a floor under every imp, across
 * currencies, and partners are offered the raised floor. Real exchange over HTTP, a fake DSP on
 * 127.0.0.1 recording what it received.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const request = (overrides: Record<string, unknown> = {}, imp: Record<string, unknown> = {}) => ({
  id: 'price-1',
  imp: [{ id: '1', banner: { w: 300, h: 250 }, ...imp }],
  site: { domain: 'pub.example', publisher: { id: 'p' } },
  tmax: 300,
  ...overrides,
});

describe('publisher pricing', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;

  beforeAll(async () => {
    dsp = await startFakeDsp(bidEveryImp({ price: 2 }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }] });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });
  beforeEach(async () => {
    dsp.setBehaviour(bidEveryImp({ price: 2 }));
    const reset = await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, { auction_type: 1, reserve_price: 0 });
    expect(reset.status).toBe(200);
  });

  const priceOf = async (body: unknown): Promise<number | undefined> => {
    const res = await ex.bid(body);
    if (res.status === 204) return undefined;
    expect(res.status).toBe(200);
    return res.json().seatbid[0].bid[0].price;
  };

  it('a new publisher is first price with no reserve, and a lone bid clears at its own price', async () => {
    const pub = await ex.admin('GET', `/v1/publishers/${ex.publisherId}`);
    expect(pub.json()).toMatchObject({ auction_type: 1, reserve_price: 0 });
    expect(await priceOf(request())).toBe(2);
  });

  it('second price with a 1.00 reserve: a lone bid of 2.00 clears at 1.01', async () => {
    const patched = await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, { auction_type: 2, reserve_price: 1 });
    expect(patched.json()).toMatchObject({ auction_type: 2, reserve_price: 1 });
    expect(await priceOf(request())).toBe(1.01);
    // The partner was offered the reserve as the imp's floor.
    expect(dsp.requests.at(-1)!.body.imp[0]).toMatchObject({ bidfloor: 1, bidfloorcur: 'USD' });
  });

  it("the request's at wins over the publisher's type, both ways", async () => {
    expect(await priceOf(request({ at: 2 }))).toBe(0.01);
    await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, { auction_type: 2 });
    expect(await priceOf(request({ at: 1 }))).toBe(2);
    expect(await priceOf(request())).toBe(0.01);
    // An exchange-specific `at` (> 500) falls back to the publisher's type.
    expect(await priceOf(request({ at: 501 }))).toBe(0.01);
  });

  it('the reserve applies across currencies: a EUR floor below it is raised, one above it stands', async () => {
    await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, { reserve_price: 1.5 });
    const eurPerUsd: number = (await ex.admin('GET', '/v1/currency/rates')).json().rates.EUR;
    // 0.5 EUR is well under 1.50 USD: the reserve is the effective floor.
    dsp.setBehaviour(bidEveryImp({ price: 1.4 }));
    expect(await priceOf(request({}, { bidfloor: 0.5, bidfloorcur: 'EUR' }))).toBeUndefined();
    expect(dsp.requests.at(-1)!.body.imp[0]).toMatchObject({ bidfloor: 1.5, bidfloorcur: 'USD' });
    dsp.setBehaviour(bidEveryImp({ price: 1.6 }));
    expect(await priceOf(request({}, { bidfloor: 0.5, bidfloorcur: 'EUR' }))).toBe(1.6);
    // 2 EUR (over 2 USD) is above the reserve: the imp's own floor stands, converted as floors are.
    const floorUsd = 2 / eurPerUsd;
    expect(floorUsd).toBeGreaterThan(2);
    dsp.setBehaviour(bidEveryImp({ price: 2 }));
    expect(await priceOf(request({}, { bidfloor: 2, bidfloorcur: 'EUR' }))).toBeUndefined();
    expect(dsp.requests.at(-1)!.body.imp[0].bidfloor).toBeCloseTo(floorUsd, 5);
    dsp.setBehaviour(bidEveryImp({ price: floorUsd + 0.01 }));
    expect(await priceOf(request({}, { bidfloor: 2, bidfloorcur: 'EUR' }))).toBeCloseTo(floorUsd + 0.01, 5);
  });

  it('the reserve raises deal floors below it', async () => {
    await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, { reserve_price: 1 });
    dsp.setBehaviour(bidEveryImp({ price: 0.9, bid: { dealid: 'deal-1' } }));
    const pmp = { private_auction: 1, deals: [{ id: 'deal-1', bidfloor: 0.2 }] };
    expect(await priceOf(request({}, { pmp }))).toBeUndefined();
    expect(dsp.requests.at(-1)!.body.imp[0].pmp.deals[0]).toMatchObject({ bidfloor: 1, bidfloorcur: 'USD' });
  });

  it('refuses a bad auction_type or reserve_price with the field named', async () => {
    for (const body of [{ auction_type: 3 }, { auction_type: '1' }, { reserve_price: -1 }, { reserve_price: 'cheap' }]) {
      const res = await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field).join(',')).toMatch(Object.keys(body)[0]!);
    }
    const created = await ex.admin('POST', '/v1/publishers', { name: 'Seconds', auction_type: 2, reserve_price: 0.25 });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ auction_type: 2, reserve_price: 0.25 });
  });
});
