/**
 * The bid endpoint's HTTP contract (DESIGN section 2): auth, content types, encodings, size
 * limits, validation errors as problem+json with nbr 2, 204 for no bid, gzip both ways.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const request = {
  id: 'req-1',
  imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.5 }],
  site: { domain: 'pub.example', page: 'https://pub.example/a', publisher: { id: 'p1' } },
  device: { ua: 'test', ip: '203.0.113.1' },
  tmax: 300,
  at: 2, // second price plus: the publisher's default is first price
};

function bidFor(body: any, price = 2.5) {
  return {
    id: 'dsp-resp',
    cur: 'USD',
    seatbid: [{ seat: 'seat-a', bid: body.imp.map((imp: any, i: number) => ({ id: `b${i}`, impid: imp.id, price, adm: '<div>ad</div>', crid: 'cr1', adomain: ['brand.example'], w: 300, h: 250 })) }],
  };
}

describe('bid endpoint HTTP contract', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;

  beforeAll(async () => {
    dsp = await startFakeDsp((body: any) => ({ status: 200, body: bidFor(body) }));
    ex = await startTestExchange({ partners: [{ name: 'dsp-a', endpoint: dsp.url }] });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  it('answers 200 with an OpenRTB 2.5 bid response and x-openrtb-version', async () => {
    const res = await ex.bid(request);
    expect(res.status).toBe(200);
    expect(res.headers['x-openrtb-version']).toBe('2.5');
    const body = res.json();
    expect(body.id).toBe('req-1');
    expect(body.cur).toBe('USD');
    expect(typeof body.bidid).toBe('string');
    const bid = body.seatbid[0].bid[0];
    expect(body.seatbid[0].seat).toBe(ex.partnerIds[0]);
    expect(bid.impid).toBe('1');
    expect(bid.id).toMatch(/^bid_/);
    expect(bid.price).toBeGreaterThan(0.5);
    expect(bid.adm).toContain('<div>ad</div>');
    expect(bid.adm).toContain(`${ex.url}/v1/notice/impression?t=`);
    expect(bid.nurl).toMatch(new RegExp(`^${ex.url}/v1/notice/win\\?t=[A-Za-z0-9_-]+&price=\\$\\{AUCTION_PRICE\\}$`));
    expect(bid.burl).toMatch(new RegExp(`^${ex.url}/v1/notice/billing\\?t=[A-Za-z0-9_-]+&price=\\$\\{AUCTION_PRICE\\}$`));
    expect(bid).toMatchObject({ crid: 'cr1', adomain: ['brand.example'], w: 300, h: 250 });
  });

  it('second price: one bid over a 0.5 floor clears at 0.51', async () => {
    const res = await ex.bid(request);
    expect(res.json().seatbid[0].bid[0].price).toBeCloseTo(0.51, 6);
  });

  it('401 without a key and with an unknown key, as problem+json', async () => {
    const none = await ex.bid(request, { headers: { authorization: '' } });
    expect(none.status).toBe(401);
    expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
    const wrong = await ex.bid(request, { headers: { authorization: 'Bearer adxk_nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({ status: 401, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
  });

  it('400 with nbr 2 and the field named', async () => {
    const res = await ex.bid({ id: 'x', imp: [] });
    expect(res.status).toBe(400);
    const problem = res.json();
    expect(problem.nbr).toBe(2);
    expect(problem.errors.some((e: any) => e.field === 'imp')).toBe(true);
    const broken = await ex.bid('{"id": "x", "imp": [');
    expect(broken.status).toBe(400);
    expect(broken.json().errors[0].field).toBe('body');
  });

  it('accepts text/plain as JSON; 415 for other content types and encodings', async () => {
    expect((await ex.bid(request, { headers: { 'content-type': 'text/plain;charset=utf-8' } })).status).toBe(200);
    expect((await ex.bid(request, { headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    expect((await ex.bid(request, { headers: { 'content-encoding': 'br' } })).status).toBe(415);
    expect((await ex.bid(request, { headers: { 'content-encoding': 'deflate' } })).status).toBe(415);
  });

  it('gzip request (Content-Encoding or ?gzip=1) and gzip response', async () => {
    const gz = gzipSync(JSON.stringify(request));
    const a = await ex.bid(gz, { headers: { 'content-encoding': 'gzip' } });
    expect(a.status).toBe(200);
    const b = await ex.bid(gz, { query: '?gzip=1', headers: { 'content-type': 'text/plain' } });
    expect(b.status).toBe(200);
    const c = await ex.bid(request, { headers: { 'accept-encoding': 'gzip' } });
    expect(c.status).toBe(200);
    expect(c.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(c.body).toString('utf8')).id).toBe('req-1');
  });

  it('413 over 64 KiB, plain or inflated, and for a gzip bomb while inflating', async () => {
    const big = JSON.stringify({ ...request, ext: { pad: 'x'.repeat(70 * 1024) } });
    expect((await ex.bid(big)).status).toBe(413);
    expect((await ex.bid(gzipSync(big), { headers: { 'content-encoding': 'gzip' } })).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const res = await ex.bid(bomb, { headers: { 'content-encoding': 'gzip' } });
    expect(res.status).toBe(413);
    expect(res.json().status).toBe(413);
    expect((await ex.bid(request)).status).toBe(200);
  });

  it('400 for a corrupt gzip body', async () => {
    const res = await ex.bid(Buffer.from('not gzip at all'), { headers: { 'content-encoding': 'gzip' } });
    expect(res.status).toBe(400);
  });

  it('204 with an empty body when the only bid is of a type the imp does not offer (HTML for a video imp)', async () => {
    const before = dsp.requests.length;
    const res = await ex.bid({ id: 'v', imp: [{ id: '1', video: { mimes: ['video/mp4'] } }] });
    expect(res.status).toBe(204);
    expect(res.body.length).toBe(0);
    expect(dsp.requests.length).toBe(before + 1);
  });
});
