/**
 * Deals and bid transparency end to end (DESIGN section 4 "Deals", "Ad quality",
 * "Transparency"): a private auction with two deals and three seats over real HTTP, each fake
 * DSP a real server on 127.0.0.1. Checks the winner and its price, every loser's `lurl` with
 * `${AUCTION_LOSS}` and `${AUCTION_MIN_TO_WIN}`, and `ext.seatnonbid` in the answer; then an open
 * auction where a fixed-price deal clears at its floor and the open bid loses with 103.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBid, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

/** One seat's answer: `bids` as [price, dealid?] pairs, every bid with a lurl and nurl back to the DSP. */
function answer(dsp: () => FakeDsp, seat: string, bids: Array<[number, string?]>) {
  return (body: any) => ({
    status: 200,
    body: {
      id: body.id,
      cur: 'USD',
      seatbid: [
        {
          seat,
          bid: bids.map(([price, dealid], i) =>
            fakeBid(body.imp[0], {
              id: `${seat}-${i}`,
              price,
              ...(dealid ? { dealid } : {}),
              nurl: `${dsp().origin}/win?b=${seat}-${i}&p=\${AUCTION_PRICE}`,
              lurl: `${dsp().origin}/loss?b=${seat}-${i}&r=\${AUCTION_LOSS}&m=\${AUCTION_MIN_TO_WIN}`,
            }),
          ),
        },
      ],
    },
  });
}

async function waitFor(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const lossesOf = (dsp: FakeDsp) => Object.fromEntries(dsp.hits.filter((h) => h.path === '/loss').map((h) => [h.query.b, { r: h.query.r, m: h.query.m }]));

describe('deals over HTTP: a private auction with two deals and three seats', () => {
  let alpha: FakeDsp;
  let beta: FakeDsp;
  let gamma: FakeDsp;
  let ex: TestExchange;

  beforeAll(async () => {
    alpha = await startFakeDsp('no_bid');
    beta = await startFakeDsp('no_bid');
    gamma = await startFakeDsp('no_bid');
    ex = await startTestExchange({
      partners: [
        { name: 'alpha', endpoint: alpha.url },
        { name: 'beta', endpoint: beta.url },
        { name: 'gamma', endpoint: gamma.url },
      ],
    });
  });
  afterAll(async () => {
    await ex?.close();
    await Promise.all([alpha, beta, gamma].map((d) => d?.close()));
  });

  it('the allowed deal bid wins at its own price; every other bid is told why it lost', async () => {
    // gold: floor 2.00, first price, only seat alpha-seat; fixed: 1.50 fixed price, any seat.
    alpha.setBehaviour(answer(() => alpha, 'alpha-seat', [[2.5, 'gold']]));
    beta.setBehaviour(answer(() => beta, 'beta-seat', [[3, 'gold'], [1.5, 'fixed'], [1.2, 'fixed']]));
    gamma.setBehaviour(answer(() => gamma, 'gamma-seat', [[4], [2.2, 'unknown-deal']]));
    const res = await ex.bid({
      id: 'pmp-1',
      imp: [
        {
          id: '1',
          banner: { w: 300, h: 250 },
          bidfloor: 0.5,
          pmp: {
            private_auction: 1,
            deals: [
              { id: 'gold', bidfloor: 2, at: 1, wseat: ['alpha-seat'] },
              { id: 'fixed', bidfloor: 1.5, at: 3 },
            ],
          },
        },
      ],
      site: { domain: 'pub.example', publisher: { id: 'p' } },
      tmax: 300,
      ext: { prebid: { returnallbidstatus: true } },
    });
    expect(res.status).toBe(200);
    const body = res.json();
    const [alphaId, betaId, gammaId] = ex.partnerIds;
    expect(body.seatbid).toHaveLength(1);
    expect(body.seatbid[0].seat).toBe(alphaId);
    expect(body.seatbid[0].bid[0]).toMatchObject({ price: 2.5, dealid: 'gold' });

    // Every partner was offered both deals, floors in USD.
    expect(gamma.requests[0]!.body.imp[0].pmp).toMatchObject({ private_auction: 1, deals: [{ id: 'gold', bidfloor: 2 }, { id: 'fixed', bidfloor: 1.5 }] });

    // The losers' lurls: beta's gold bid was outside the deal's wseat (213: no price could have
    // won it); its fixed-price bid at the floor lost on price (102) and would have needed 2.51,
    // as would its bid under the fixed deal's floor (101); gamma's open bid has no place in a
    // private auction (4), nor has its bid for an unknown deal: no price is named for either.
    await waitFor(() => Object.keys(lossesOf(beta)).length === 3 && Object.keys(lossesOf(gamma)).length === 2);
    expect(lossesOf(beta)).toEqual({
      'beta-seat-0': { r: '213', m: '' },
      'beta-seat-1': { r: '102', m: '2.51' },
      'beta-seat-2': { r: '101', m: '2.51' },
    });
    expect(lossesOf(gamma)).toEqual({ 'gamma-seat-0': { r: '4', m: '' }, 'gamma-seat-1': { r: '4', m: '' } });
    expect(lossesOf(alpha)).toEqual({});

    // ext.seatnonbid: per partner and imp, the status of its most telling bid and the loss reason.
    expect(body.ext.seatnonbid).toEqual([
      { seat: betaId, nonbid: [{ impid: '1', statuscode: 501, ext: { loss: 102 } }] },
      { seat: gammaId, nonbid: [{ impid: '1', statuscode: 300, ext: { loss: 4 } }] },
    ]);
  });

  it('an open auction: a fixed-price deal bid beats a lower open bid (103) and clears at its floor', async () => {
    // A deal bid beats open bids only on price: 3.00 on the fixed deal against an open 2.00.
    alpha.setBehaviour(answer(() => alpha, 'alpha-seat', [[3, 'fixed']]));
    beta.setBehaviour(answer(() => beta, 'beta-seat', [[2]]));
    gamma.setBehaviour('no_bid');
    const before = { alpha: alpha.hits.length, beta: beta.hits.length };
    const res = await ex.bid({
      id: 'pmp-2',
      imp: [{ id: '1', banner: { w: 300, h: 250 }, pmp: { private_auction: 0, deals: [{ id: 'fixed', bidfloor: 1.5, at: 3 }] } }],
      site: { domain: 'pub.example', publisher: { id: 'p' } },
      tmax: 300,
      ext: { prebid: { returnallbidstatus: true } },
    });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.seatbid[0].bid[0]).toMatchObject({ price: 1.5, dealid: 'fixed' });
    await waitFor(() => beta.hits.length > before.beta);
    expect(beta.hits.slice(before.beta).find((h) => h.path === '/loss')!.query).toMatchObject({ b: 'beta-seat-0', r: '103', m: '3.01' });
    expect(body.ext.seatnonbid).toEqual([
      { seat: ex.partnerIds[1], nonbid: [{ impid: '1', statuscode: 502, ext: { loss: 103 } }] },
      { seat: ex.partnerIds[2], nonbid: [{ impid: '1', statuscode: 0 }] },
    ]);
  });

  it('nothing won and the request asked for every status: 200 with an empty seatbid and the reasons', async () => {
    alpha.setBehaviour(answer(() => alpha, 'alpha-seat', [[0.2]]));
    beta.setBehaviour('no_bid');
    gamma.setBehaviour(answer(() => gamma, 'gamma-seat', [[2, 'gold']]));
    const res = await ex.bid({
      id: 'pmp-3',
      imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 1, bcat: [] }],
      bcat: ['IAB7'],
      site: { domain: 'pub.example', publisher: { id: 'p' } },
      tmax: 300,
      ext: { prebid: { returnallbidstatus: true } },
    });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.seatbid).toEqual([]);
    expect(body.ext.seatnonbid).toEqual([
      { seat: ex.partnerIds[0], nonbid: [{ impid: '1', statuscode: 301, ext: { loss: 100 } }] },
      { seat: ex.partnerIds[1], nonbid: [{ impid: '1', statuscode: 0 }] },
      // A deal id the imp does not carry: 4 (invalid deal id).
      { seat: ex.partnerIds[2], nonbid: [{ impid: '1', statuscode: 300, ext: { loss: 4 } }] },
    ]);
    // Without the flag the same auction answers 204, as before.
    const plain = await ex.bid({ id: 'pmp-4', imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 1 }], site: { domain: 'pub.example', publisher: { id: 'p' } }, tmax: 300 });
    expect(plain.status).toBe(204);
  });
});
