/**
 * Browser supply (DESIGN section 2, "Browser supply (Prebid.js)") at the HTTP level: CORS on
 * every answer, preflights, publisher by `site.publisher.id` + Origin against its domains, rate
 * limits per publisher and per client IP, the Prebid bidder code as seat, `?gzip=1` text/plain.
 */
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

function prebidRequest(publisherId: string, id = 'pb-1') {
  return {
    id,
    imp: [{ id: 'div-gpt-ad-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { adx: { placement: 1 } } } } }],
    site: { domain: 'news.example', page: 'https://www.news.example/a', publisher: { id: publisherId } },
    tmax: 1000,
  };
}

describe('browser supply', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  let browserPub: string;
  let closedPub: string;

  beforeAll(async () => {
    dsp = await startFakeDsp((body: any) => ({
      status: 200,
      body: { id: body.id, seatbid: [{ bid: body.imp.map((imp: any) => ({ id: 'x', impid: imp.id, price: 1.2, adm: '<b>ad</b>', crid: 'cr', w: 300, h: 250 })) }] },
    }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }], config: { browser: { ipRequestsPerSecond: 0, publisherRequestsPerSecond: 0 } } });
    browserPub = (await ex.admin('POST', '/v1/publishers', { name: 'News', domain: 'news.example', domains: ['news.example'], browser_access: true })).json().id;
    closedPub = (await ex.admin('POST', '/v1/publishers', { name: 'Closed', domains: ['closed.example'], browser_access: false })).json().id;
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  const browserBid = (body: unknown, origin: string | undefined, extra: Record<string, string> = {}) =>
    ex.bid(body, { headers: { authorization: undefined as unknown as string, 'content-type': 'text/plain', ...(origin ? { origin } : {}), ...extra } });

  it('answers a browser request from an allowed origin, with CORS and the Prebid seat', async () => {
    const res = await browserBid(prebidRequest(browserPub), 'https://www.news.example:8443');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://www.news.example:8443');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers.vary)).toContain('Origin');
    const seatbid = res.json().seatbid[0];
    expect(seatbid.seat).toBe('adx');
    expect(seatbid.bid[0].ext.demand_partner_id).toBe(ex.partnerIds[0]);
    expect(seatbid.bid[0].impid).toBe('div-gpt-ad-1');
    expect(seatbid.bid[0].crid).toBe('cr');
  });

  it('reads a gzip body sent with ?gzip=1 and no Content-Encoding', async () => {
    const res = await ex.bid(gzipSync(JSON.stringify(prebidRequest(browserPub))), {
      query: '?gzip=1',
      headers: { authorization: undefined as unknown as string, 'content-type': 'text/plain', origin: 'https://news.example' },
    });
    expect(res.status).toBe(200);
  });

  it('403 for an origin outside the domains, readable by the page (CORS on errors)', async () => {
    const res = await browserBid(prebidRequest(browserPub), 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.example');
    expect(res.json().status).toBe(403);
    expect((await browserBid(prebidRequest(browserPub), 'https://notnews.example')).status).toBe(403);
    expect((await browserBid(prebidRequest(browserPub), undefined)).status).toBe(403);
  });

  it('401 for an unknown or missing publisher, 403 without browser access', async () => {
    expect((await browserBid(prebidRequest('pub_unknown'), 'https://news.example')).status).toBe(401);
    const noPub = prebidRequest(browserPub);
    delete (noPub.site as any).publisher;
    expect((await browserBid(noPub, 'https://news.example')).status).toBe(401);
    expect((await browserBid(prebidRequest(closedPub), 'https://closed.example')).status).toBe(403);
  });

  it('CORS on errors from server-to-server clients too, and preflights', async () => {
    const bad = await ex.bid({ id: '' }, { headers: { origin: 'https://x.example' } });
    expect(bad.status).toBe(400);
    expect(bad.headers['access-control-allow-origin']).toBe('https://x.example');
    const pre = await request(`${ex.url}/v1/openrtb/2.5/bidrequest`, {
      method: 'OPTIONS',
      headers: { origin: 'https://news.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    await pre.body.dump();
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://news.example');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    expect(Number(pre.headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('Bearer clients keep working with an Origin (Prebid customHeaders)', async () => {
    const res = await ex.bid(prebidRequest('whatever'), { headers: { origin: 'https://anything.example' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://anything.example');
  });
});

describe('browser rate limits', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  let pub: string;
  beforeAll(async () => {
    dsp = await startFakeDsp(() => ({ status: 204 }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }], config: { browser: { ipRequestsPerSecond: 3, publisherRequestsPerSecond: 100 } } });
    pub = (await ex.admin('POST', '/v1/publishers', { name: 'News', domains: ['news.example'], browser_access: true })).json().id;
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  it('429 with Retry-After past the per-IP limit; Bearer clients are not limited', async () => {
    const statuses: number[] = [];
    let retryAfter: unknown;
    for (let i = 0; i < 6; i++) {
      const res = await ex.bid(prebidRequest(pub, `r${i}`), { headers: { authorization: undefined as unknown as string, 'content-type': 'text/plain', origin: 'https://news.example' } });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers['retry-after'];
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect(statuses.slice(0, 3).every((s) => s === 204)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 6; i++) expect((await ex.bid(prebidRequest(pub, `s${i}`))).status).toBe(204);
  });
});

describe('per-key limit for Bearer clients, when the operator sets one', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  beforeAll(async () => {
    dsp = await startFakeDsp(() => ({ status: 204 }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }], config: { browser: { keyRequestsPerSecond: 2 } } });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  it('429 with Retry-After past the key limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await ex.bid(prebidRequest('any', `k${i}`))).status);
    expect(statuses.slice(0, 2)).toEqual([204, 204]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
  });
});
