/**
 * Nothing personal at rest or in logs (DESIGN section 11, issue 12 part 5): requests carrying
 * user and device ids, IPv4 and IPv6 addresses and consent strings (TCF, GPP, US Privacy; 2.5
 * and 2.6 locations) go through the whole exchange, with bids won, billed and reported by
 * webhook, logging at `debug`; then the SQLite files, every log line and every webhook body are
 * searched for each of those values. None may appear.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startFakeReceiver, type FakeReceiver } from '../fakes/fake-receiver.js';
import { gppUsNat, gppWithTcf, tcString } from '../helpers/consent.js';
import { startLoggedExchange, type LoggedExchange } from './logged-exchange.js';

const TC = tcString({ purposeConsents: [1, 2], vendorConsents: [11], specialFeatureOptins: [1] });
const GPP_TCF = gppWithTcf(tcString({ purposeConsents: [1, 2, 3], vendorConsents: [11, 22], specialFeatureOptins: [1] }));
const GPP_US = gppUsNat({ saleOptOut: 2 });

/** Every personal value sent; none may be found anywhere the exchange keeps or writes. */
const PERSONAL = {
  ipv4: '198.51.100.213',
  ipv6: '2001:db8:abcd:12:3456:789a:bcde:f012',
  userId: 'user-id-5f1e9a7c',
  buyeruid: 'buyeruid-77a0c3',
  eid: 'eid-uid-0c9d8e7f',
  ifa: '6d92078a-8246-4ba4-ae5b-76104861e7dc',
  didsha1: 'didsha1-3fa1b2',
  macmd5: 'macmd5-0ab1c2',
  tcf: TC,
  gppTcf: GPP_TCF,
  gppUs: GPP_US,
  usPrivacy: '1YNY',
  lat: '52.520008',
};

function personalRequest(id: string, locations: '2.5' | '2.6') {
  const user = { id: PERSONAL.userId, buyeruid: PERSONAL.buyeruid, yob: 1990, geo: { lat: 52.520008, lon: 13.404954 } };
  const eids = [{ source: 'id5-sync.com', uids: [{ id: PERSONAL.eid }] }];
  const regs25 = { ext: { gdpr: 1, us_privacy: PERSONAL.usPrivacy } };
  const regs26 = { gdpr: 1, us_privacy: PERSONAL.usPrivacy, gpp: PERSONAL.gppUs, gpp_sid: [7] };
  return {
    id,
    imp: [{ id: '1', banner: { w: 300, h: 250 } }],
    site: { domain: 'pub.example', publisher: { id: 'p' } },
    device: { ip: PERSONAL.ipv4, ipv6: PERSONAL.ipv6, ifa: PERSONAL.ifa, didsha1: PERSONAL.didsha1, macmd5: PERSONAL.macmd5, ua: 'Mozilla/5.0', geo: { lat: 52.520008, lon: 13.404954 } },
    user: locations === '2.6' ? { ...user, consent: PERSONAL.tcf, eids } : { ...user, ext: { consent: PERSONAL.tcf, eids } },
    regs: locations === '2.6' ? regs26 : regs25,
    tmax: 1000,
  };
}

describe('no personal data at rest, in logs or in webhooks', () => {
  let ex: LoggedExchange;
  let dsp: FakeDsp;
  let receiver: FakeReceiver;
  let apiKey: string;

  beforeAll(async () => {
    dsp = await startFakeDsp((body: any) => ({
      status: 200,
      body: {
        id: body.id,
        seatbid: [{ seat: 'seat-1', bid: body.imp.map((imp: any) => ({ id: `b-${imp.id}`, impid: imp.id, price: 2, adm: '<b>ad</b>', crid: 'c1', adomain: ['adv.example'], w: 300, h: 250, nurl: `${dsp.origin}/win?p=\${AUCTION_PRICE}`, burl: `${dsp.origin}/bill?p=\${AUCTION_PRICE}` })) }],
      },
    }));
    receiver = await startFakeReceiver();
    ex = await startLoggedExchange('debug', { keepDir: true, config: { webhooks: { allowPrivateTargets: true, retryScheduleMs: [0, 50, 50] } } });
    const pub = await ex.admin('POST', '/v1/publishers', { name: 'Sec Pub', domain: 'pub.example' });
    apiKey = pub.json().api_key;
    for (const body of [
      { name: 'consented', endpoint: dsp.url, gvl_vendor_id: 11 },
      { name: 'consented-26', endpoint: dsp.url, gvl_vendor_id: 22, openrtb_version: '2.6' },
      { name: 'no-vendor-id', endpoint: dsp.url },
      { name: 'unreachable', endpoint: 'http://127.0.0.1:9/openrtb', gvl_vendor_id: 11 },
    ]) {
      expect((await ex.admin('POST', '/v1/demand-partners', body)).status).toBe(201);
    }
    const hook = await ex.admin('POST', '/v1/webhook-endpoints', { url: `${receiver.url}/hooks`, events: ['auction.complete', 'billing.notice'] });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await receiver?.close();
    await dsp?.close();
    if (ex) await rm(ex.dir, { recursive: true, force: true });
  });

  const bid = async (body: unknown) => {
    const res = await request(`${ex.url}/v1/openrtb/2.5/bidrequest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };

  it('finds none of the values in the SQLite files, the debug log or the webhook bodies', async () => {
    const won: any[] = [];
    for (const [i, body] of [personalRequest('sec-1', '2.5'), personalRequest('sec-2', '2.6'), { ...personalRequest('sec-3', '2.6'), user: { ...personalRequest('sec-3', '2.6').user, consent: undefined }, regs: { gpp: PERSONAL.gppTcf, gpp_sid: [2] } }].entries()) {
      const res = await bid(body);
      expect(res.status, `request ${i}`).toBe(200);
      won.push(...JSON.parse(res.text).seatbid.flatMap((s: any) => s.bid));
    }
    // An undecodable string, a COPPA request and an invalid one (400) carry the same values.
    expect((await bid({ ...personalRequest('sec-4', '2.6'), user: { ...personalRequest('sec-4', '2.6').user, consent: PERSONAL.tcf.slice(0, 20) } })).status).toBe(204);
    expect((await bid({ ...personalRequest('sec-5', '2.5'), regs: { coppa: 1 } })).status).toBe(200);
    expect((await bid({ ...personalRequest('sec-6', '2.5'), regs: { ext: { gdpr: 7, us_privacy: PERSONAL.usPrivacy } } })).status).toBe(400);
    // Win, bill and pixel for each bid: the notice path stores and emits billing.notice.
    for (const b of won) {
      await (await request(b.nurl.replace('${AUCTION_PRICE}', String(b.price)))).body.dump();
      await (await request(b.burl.replace('${AUCTION_PRICE}', String(b.price)))).body.dump();
    }
    // One auction.complete and one billing.notice per won bid.
    const deliveries = await receiver.waitForDeliveries(won.length * 2, 10_000);
    expect(deliveries.some((d) => d.path.endsWith('/billing-notice'))).toBe(true);
    await ex.close();

    const files = readdirSync(ex.dir).filter((f) => f.startsWith('adx.db'));
    const store = Buffer.concat(files.map((f) => readFileSync(join(ex.dir, f))));
    const log = ex.logText();
    const webhooks = receiver.deliveries.map((d) => d.body).join('\n');
    // We are looking at the right data.
    expect(store.includes('sec-1')).toBe(true);
    expect(log.length).toBeGreaterThan(0);
    expect(webhooks).toContain('sec-2');

    const found: string[] = [];
    for (const [name, value] of Object.entries(PERSONAL)) {
      if (store.includes(value)) found.push(`${name} in the store`);
      if (log.includes(value)) found.push(`${name} in the log`);
      if (webhooks.includes(value)) found.push(`${name} in a webhook body`);
    }
    expect(found).toEqual([]);
  });
});
