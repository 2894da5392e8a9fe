/**
 * sellers.json (DESIGN section 11): `GET /sellers.json` without a key answers IAB sellers.json 1.0
 * with one seller per publisher, and the schain node the exchange appends for a publisher's
 * request has `sid` equal to that publisher's `seller_id`. Real exchange over HTTP, a fake DSP.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

describe('sellers.json', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;

  beforeAll(async () => {
    dsp = await startFakeDsp(bidEveryImp({ price: 2 }));
    ex = await startTestExchange({
      partners: [{ name: 'dsp', endpoint: dsp.url }],
      config: { exchange: { domain: 'adx.test', contactEmail: 'sellers@adx.test', contactAddress: '1 Exchange Street, Springfield' } },
    });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  const sellersJson = async () => {
    const res = await request(`${ex.url}/sellers.json`);
    return { status: res.statusCode, type: res.headers['content-type'], body: (await res.body.json()) as any };
  };

  it('lists every publisher; a confidential seller has no name or domain; no key needed', async () => {
    const hidden = await ex.admin('POST', '/v1/publishers', { name: 'Hidden Network', domain: 'hidden.example', seller_type: 'INTERMEDIARY', is_confidential: true });
    expect(hidden.status).toBe(201);
    expect(hidden.json()).toMatchObject({ seller_type: 'INTERMEDIARY', is_confidential: true });
    const bad = await ex.admin('POST', '/v1/publishers', { name: 'x', seller_type: 'RESELLER' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('seller_type');

    const { status, type, body } = await sellersJson();
    expect(status).toBe(200);
    expect(type).toMatch(/^application\/json/);
    expect(body).toEqual({
      version: '1.0',
      contact_email: 'sellers@adx.test',
      contact_address: '1 Exchange Street, Springfield',
      sellers: [
        { seller_id: ex.publisherId, name: 'Test Publisher', domain: 'pub.example', seller_type: 'PUBLISHER', is_confidential: 0 },
        { seller_id: hidden.json().id, seller_type: 'INTERMEDIARY', is_confidential: 1 },
      ],
    });

    // A PATCH shows at once.
    const patched = await ex.admin('PATCH', `/v1/publishers/${ex.publisherId}`, { seller_type: 'BOTH' });
    expect(patched.json().seller_type).toBe('BOTH');
    expect((await sellersJson()).body.sellers[0].seller_type).toBe('BOTH');
  });

  it("the exchange's schain node sid is the publisher's seller_id", async () => {
    const res = await ex.bid({ id: 'sc-1', imp: [{ id: '1', banner: { w: 300, h: 250 } }], site: { domain: 'pub.example', publisher: { id: 'their-own-id' } }, tmax: 1000 });
    expect(res.status).toBe(200);
    const nodes = dsp.requests.at(-1)!.body.source.ext.schain.nodes;
    const ours = nodes.at(-1);
    expect(ours).toMatchObject({ asi: 'adx.test', hp: 1, rid: 'sc-1' });
    const sellerIds = (await sellersJson()).body.sellers.map((s: any) => s.seller_id);
    expect(sellerIds).toContain(ours.sid);
    expect(ours.sid).toBe(ex.publisherId);
  });
});
