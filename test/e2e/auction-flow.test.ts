/**
 * End to end over loopback (issue "Done means"): four real fake DSPs — one good, one slower than
 * tmax, one answering junk, one answering 204 — and the exchange answers on time with the good
 * bid; then the notices: the winner's nurl/burl reached with every macro substituted, repeats
 * idempotent, a forged token 403, an expired one 410, losers' lurl with ${AUCTION_LOSS}.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const bidRequest = {
  id: 'flow-1',
  imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, bidfloor: 0.2 }],
  site: { domain: 'pub.example', publisher: { id: 'p' } },
  tmax: 400, // room for a loaded machine; the slow partner (1,000 ms) still misses it
  at: 2, // second price plus: the publisher's default is first price
};

function dspBid(body: any, price: number, seat: string, withLurl = false) {
  const q = 'p=${AUCTION_PRICE}&a=${AUCTION_ID}&b=${AUCTION_BID_ID}&i=${AUCTION_IMP_ID}&s=${AUCTION_SEAT_ID}&ad=${AUCTION_AD_ID}&c=${AUCTION_CURRENCY}&m=${AUCTION_MBR}';
  return {
    id: body.id,
    cur: 'USD',
    seatbid: [
      {
        seat,
        bid: [
          {
            id: `${seat}-bid`,
            impid: body.imp[0].id,
            price,
            adid: `${seat}-ad`,
            adm: '<a href="x">creative ${AUCTION_PRICE}</a>',
            crid: `${seat}-cr`,
            w: 300,
            h: 250,
            nurl: `/win?${q}`,
            burl: `/bill?${q}`,
            ...(withLurl ? { lurl: '/loss?r=${AUCTION_LOSS}&b=${AUCTION_BID_ID}' } : {}),
          },
        ],
      },
    ],
  };
}

async function get(url: string) {
  const res = await request(url);
  await res.body.dump();
  return res.statusCode;
}

async function waitFor(check: () => boolean, timeoutMs = 3000) {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('auction flow with real fake DSPs', () => {
  let good: FakeDsp;
  let loser: FakeDsp;
  let slow: FakeDsp;
  let junk: FakeDsp;
  let empty: FakeDsp;
  let ex: TestExchange;

  beforeAll(async () => {
    good = await startFakeDsp((body: any) => ({ status: 200, body: absolutize(dspBid(body, 3.0, 'good'), good.origin) }));
    loser = await startFakeDsp((body: any) => ({ status: 200, body: absolutize(dspBid(body, 1.25, 'loser', true), loser.origin) }));
    slow = await startFakeDsp((body: any) => ({ status: 200, delayMs: 1000, body: dspBid(body, 9.0, 'slow') }));
    junk = await startFakeDsp(() => ({ status: 200, raw: Buffer.from('{"seatbid": [ not json') }));
    empty = await startFakeDsp(() => ({ status: 204 }));
    ex = await startTestExchange({
      // The slow partner holds the dispatch to its budget (tmax - margin); the margin is what is
      // left for the auction, the commit and the answer, so give a loaded test machine room.
      config: { auction: { tmaxMarginMs: 150 } },
      partners: [
        { name: 'good', endpoint: good.url },
        { name: 'loser', endpoint: loser.url },
        { name: 'slow', endpoint: slow.url },
        { name: 'junk', endpoint: junk.url },
        { name: 'empty', endpoint: empty.url },
      ],
    });
  });
  afterAll(async () => {
    await ex?.close();
    await Promise.all([good, loser, slow, junk, empty].map((d) => d?.close()));
  });

  function absolutize(body: any, base: string) {
    for (const seat of body.seatbid) {
      for (const bid of seat.bid) {
        for (const k of ['nurl', 'burl', 'lurl']) if (bid[k]) bid[k] = base + bid[k];
      }
    }
    return body;
  }

  let bid: any;

  it('answers within tmax with the good bid at the second price', async () => {
    const started = performance.now();
    const res = await ex.bid(bidRequest);
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(elapsed).toBeLessThan(bidRequest.tmax + 50); // a deadline, not a speed goal
    const body = res.json();
    expect(body.seatbid).toHaveLength(1);
    bid = body.seatbid[0].bid[0];
    expect(body.seatbid[0].seat).toBe(ex.partnerIds[0]);
    expect(bid.crid).toBe('good-cr');
    expect(bid.price).toBeCloseTo(1.26, 6); // 1.25 + 0.01
    expect(bid.adm).toContain('creative 1.26'); // the partner's own macro, substituted with its clearing price
    for (const dsp of [good, loser, slow, junk, empty]) expect(dsp.requests.length).toBe(1);
    const sent = good.requests[0]!;
    expect(sent.headers['x-openrtb-version']).toBe('2.5');
    expect(sent.body.id).not.toBe('flow-1');
    expect(sent.body.tmax).toBeLessThanOrEqual(bidRequest.tmax - 150);
    expect(sent.body.source.ext.schain.nodes.at(-1)).toMatchObject({ sid: ex.publisherId, rid: 'flow-1', hp: 1 });
  });

  it('fires the loser\'s lurl with loss reason 102', async () => {
    await waitFor(() => loser.hits.some((h) => h.path === '/loss'));
    const hit = loser.hits.find((h) => h.path === '/loss')!;
    expect(hit.query.r).toBe('102');
    expect(hit.query.b).toBe('loser-bid');
  });

  it('win notice: counted once, the partner nurl called once with every macro', async () => {
    const nurl = bid.nurl.replace('${AUCTION_PRICE}', '1.26');
    expect(await get(nurl)).toBe(200);
    expect(await get(nurl)).toBe(200);
    await waitFor(() => good.hits.some((h) => h.path === '/win'));
    await new Promise((r) => setTimeout(r, 200));
    const wins = good.hits.filter((h) => h.path === '/win');
    expect(wins).toHaveLength(1);
    const q = wins[0]!.query;
    expect(q.p).toBe('1.26');
    expect(q.a).toBe(good.requests[0]!.body.id);
    expect(q.b).toBe('good-bid');
    expect(q.i).toBe('imp-1');
    expect(q.s).toBe('good');
    expect(q.ad).toBe('good-ad');
    expect(q.c).toBe('USD');
    expect(Number(q.m)).toBeCloseTo(0.42, 6);
  });

  it('billing: the first of burl or pixel counts; the partner burl is called once', async () => {
    const pixel = /<img src="([^"]+)"/.exec(bid.adm)![1]!.replace(/&amp;/g, '&');
    expect(await get(pixel)).toBe(200);
    expect(await get(bid.burl.replace('${AUCTION_PRICE}', '1.26'))).toBe(200);
    expect(await get(bid.burl)).toBe(200); // unreplaced macro counts as no price
    await waitFor(() => good.hits.some((h) => h.path === '/bill'));
    await new Promise((r) => setTimeout(r, 200));
    expect(good.hits.filter((h) => h.path === '/bill')).toHaveLength(1);
  });

  it('forged token 403, expired token 410', async () => {
    const t = new URL(bid.nurl.replace('${AUCTION_PRICE}', '1')).searchParams.get('t')!;
    const flipped = t.slice(0, 10) + (t[10] === 'A' ? 'B' : 'A') + t.slice(11);
    const forged = await request(`${ex.url}/v1/notice/win?t=${flipped}`);
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toMatch(/problem\+json/);
    await forged.body.dump();
    ex.clock.shift(25 * 3600 * 1000);
    try {
      const expired = await request(`${ex.url}/v1/notice/win?t=${t}`);
      expect(expired.statusCode).toBe(410);
      await expired.body.dump();
    } finally {
      ex.clock.shift(-25 * 3600 * 1000);
    }
  });

  it('the slow partner was dropped as a timeout (metrics)', async () => {
    const text = await (await request(`${ex.url}/metrics`)).body.text();
    expect(text).toMatch(new RegExp(`adx_adapter_errors_total\\{adapter="${ex.partnerIds[2]}",adapter_error="timeout"\\} 1`));
    expect(text).toMatch(new RegExp(`adx_adapter_errors_total\\{adapter="${ex.partnerIds[3]}",adapter_error="bad_response"\\} 1`));
  });
});
