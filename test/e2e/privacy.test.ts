/**
 * Privacy end to end (DESIGN section 11, issue 12 cases): a real exchange over HTTP and three fake
 * DSPs on 127.0.0.1 recording what each received, with consent strings built by the IAB
 * libraries. A is TCF vendor 11 speaking OpenRTB 2.5, B vendor 22 speaking 2.6, C has no vendor
 * id (2.5).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bidEveryImp, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { scrape, sumOf } from '../faults/metrics-text.js';
import { gppUsCa, gppUsNat, gppWithTcf, tcString } from '../helpers/consent.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const IP = '203.0.113.77';
const IPV6 = '2001:db8:85a3:8d3:1319:8a2e:370:7348';
const EIDS = [{ source: 'id5-sync.com', uids: [{ id: 'ID5-abc', atype: 1 }] }];

/** A request full of personal data, with `regs`/`user` additions. */
function request(regs: Record<string, unknown> = {}, user: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    id: 'priv-1',
    imp: [{ id: '1', banner: { w: 300, h: 250 } }],
    site: { domain: 'pub.example', page: 'https://pub.example/a', publisher: { id: 'p' } },
    device: {
      ip: IP,
      ipv6: IPV6,
      ifa: 'ifa-123',
      didsha1: 'didsha1',
      didmd5: 'didmd5',
      dpidsha1: 'dpidsha1',
      dpidmd5: 'dpidmd5',
      macsha1: 'macsha1',
      macmd5: 'macmd5',
      ua: 'Mozilla/5.0',
      geo: { lat: 52.520008, lon: 13.404954, city: 'Berlin', zip: '10117', metro: '0', country: 'DEU' },
    },
    user: { id: 'user-1', buyeruid: 'buyer-1', yob: 1990, gender: 'F', geo: { lat: 48.856613, lon: 2.352222, zip: '75001', city: 'Paris' }, ...user },
    regs,
    tmax: 1000,
    ext: { prebid: { returnallbidstatus: true } },
    ...extra,
  };
}

const ID_FREE_DEVICE = { ua: 'Mozilla/5.0' };

describe('privacy per partner', () => {
  let a: FakeDsp;
  let b: FakeDsp;
  let c: FakeDsp;
  let ex: TestExchange;
  let ids: { a: string; b: string; c: string };

  beforeAll(async () => {
    a = await startFakeDsp(bidEveryImp({ price: 3, seat: 'a' }));
    b = await startFakeDsp(bidEveryImp({ price: 2, seat: 'b' }));
    c = await startFakeDsp(bidEveryImp({ price: 1, seat: 'c' }));
    ex = await startTestExchange({
      partners: [
        { name: 'A', endpoint: a.url, gvl_vendor_id: 11 },
        { name: 'B', endpoint: b.url, gvl_vendor_id: 22, openrtb_version: '2.6' },
        { name: 'C', endpoint: c.url },
      ],
    });
    ids = { a: ex.partnerIds[0]!, b: ex.partnerIds[1]!, c: ex.partnerIds[2]! };
  });
  afterAll(async () => {
    await ex?.close();
    await Promise.all([a, b, c].map((d) => d?.close()));
  });
  beforeEach(() => {
    for (const d of [a, b, c]) d.requests.length = 0;
  });

  const blocked = async (partner: string, reason: string) => sumOf(await scrape(ex.url), 'adx_privacy_blocked_total', { partner, reason });
  const nonBidStatus = (body: any, seat: string) => body.ext.seatnonbid.find((s: any) => s.seat === seat)?.nonbid[0]?.statuscode;

  it('GDPR with consent for A and not B: A gets the string unchanged, B and C (no vendor id) are not called, counted and listed as 204', async () => {
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [11], specialFeatureOptins: [1] });
    const before = { b: await blocked(ids.b, 'gdpr_purpose2_denied'), c: await blocked(ids.c, 'gdpr_no_vendor_id') };
    const res = await ex.bid(request({ ext: { gdpr: 1 } }, { ext: { consent: tc } }));
    expect(res.status).toBe(200);
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(0);
    expect(c.requests).toHaveLength(0);
    const got = a.requests[0]!.body;
    expect(got.user.ext.consent).toBe(tc);
    expect(got.regs.ext.gdpr).toBe(1);
    // Full consent: ids, IP and precise geo pass.
    expect(got.user).toMatchObject({ id: 'user-1', buyeruid: 'buyer-1' });
    expect(got.device).toMatchObject({ ip: IP, ifa: 'ifa-123', geo: { lat: 52.520008 } });
    expect(await blocked(ids.b, 'gdpr_purpose2_denied')).toBe(before.b + 1);
    expect(await blocked(ids.c, 'gdpr_no_vendor_id')).toBe(before.c + 1);
    expect(nonBidStatus(res.json(), ids.b)).toBe(204);
    expect(nonBidStatus(res.json(), ids.c)).toBe(204);
  });

  it('two partners of different consent in one request: each gets its own copy', async () => {
    // 22 has purpose 1 and 2 consent; 11 only purpose 2 by legitimate interest: ids scrubbed for A only.
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [22], purposeLegitimateInterests: [2], vendorLegitimateInterests: [11], specialFeatureOptins: [1] });
    const res = await ex.bid(request({ gdpr: 1 }, { consent: tc, eids: EIDS }));
    expect(res.status).toBe(200);
    // A (2.5): ids scrubbed, the rest intact; the 2.6 input locations moved into ext.
    const got = a.requests[0]!.body;
    expect(got.user).toEqual({ yob: 1990, gender: 'F', geo: { lat: 48.856613, lon: 2.352222, zip: '75001', city: 'Paris' }, ext: { consent: tc } });
    expect(got.device.ifa).toBeUndefined();
    expect(got.device.ip).toBe(IP);
    expect(got.regs).toEqual({ ext: { gdpr: 1 } });
    // B (2.6): everything, top-level.
    const gotB = b.requests[0]!.body;
    expect(gotB.user).toMatchObject({ id: 'user-1', buyeruid: 'buyer-1', consent: tc, eids: EIDS });
    expect(gotB.device).toMatchObject({ ifa: 'ifa-123', didsha1: 'didsha1', ip: IP, ipv6: IPV6 });
    expect(gotB.regs).toEqual({ gdpr: 1 });
    expect(b.requests[0]!.headers['x-openrtb-version']).toBe('2.6');
    expect(a.requests[0]!.headers['x-openrtb-version']).toBe('2.5');
  });

  it('purpose 1 refused: ids scrubbed and the bid still possible; special feature 1 absent: geo coarsened', async () => {
    const tc = tcString({ purposeConsents: [2], vendorConsents: [11] });
    const res = await ex.bid(request({ gdpr: 1 }, { consent: tc, eids: EIDS }));
    expect(res.status).toBe(200);
    expect(res.json().seatbid[0].bid[0].price).toBe(3);
    const got = a.requests[0]!.body;
    for (const key of ['id', 'buyeruid', 'eids']) expect(got.user[key]).toBeUndefined();
    expect(got.user.ext.eids).toBeUndefined();
    for (const key of ['ifa', 'didsha1', 'didmd5', 'dpidsha1', 'dpidmd5', 'macsha1', 'macmd5']) expect(got.device[key]).toBeUndefined();
    expect(got.device.geo).toEqual({ lat: 52.52, lon: 13.4, city: 'Berlin', zip: '10117', metro: '0', country: 'DEU' });
    expect(got.user.geo).toEqual({ lat: 48.86, lon: 2.35, zip: '75001', city: 'Paris' });
    expect(got.device.ip).toBe(IP);
  });

  it('an undecodable string under GDPR calls no one (204) and counts each partner', async () => {
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [11, 22] });
    const before = await blocked(ids.a, 'gdpr_invalid_consent_string');
    const res = await ex.bid(request({ gdpr: 1 }, { consent: tc.slice(0, 10) }));
    // No bid; the answer is 200 only to carry ext.seatnonbid (returnallbidstatus): 204 for each.
    expect(res.status).toBe(200);
    expect(res.json().seatbid ?? []).toEqual([]);
    for (const id of Object.values(ids)) expect(nonBidStatus(res.json(), id)).toBe(204);
    expect(a.requests.length + b.requests.length + c.requests.length).toBe(0);
    expect(await blocked(ids.a, 'gdpr_invalid_consent_string')).toBe(before + 1);
    const missing = await ex.bid({ ...request({ gdpr: 1 }), ext: {} });
    expect(missing.status).toBe(204);
    expect(await blocked(ids.b, 'gdpr_no_consent_string')).toBeGreaterThanOrEqual(1);
  });

  it('GDPR 0: nothing changes, every partner called with everything', async () => {
    const res = await ex.bid(request({ ext: { gdpr: 0 } }, { ext: { consent: 'not-even-a-string-we-read', eids: EIDS } }));
    expect(res.status).toBe(200);
    for (const d of [a, c]) {
      expect(d.requests[0]!.body.user).toEqual(request({}, { ext: { consent: 'not-even-a-string-we-read', eids: EIDS } }).user);
      expect(d.requests[0]!.body.device).toEqual(request().device);
    }
    expect(b.requests[0]!.body.user).toMatchObject({ id: 'user-1', consent: 'not-even-a-string-we-read', eids: EIDS });
  });

  it('COPPA: ids scrubbed, IP masked (v4 and v6), yob, gender and precise geo removed, for every partner', async () => {
    const res = await ex.bid(request({ coppa: 1 }, { eids: EIDS }));
    expect(res.status).toBe(200);
    for (const d of [a, b, c]) {
      const got = d.requests[0]!.body;
      expect(got.device).toEqual({ ...ID_FREE_DEVICE, ip: '203.0.113.0', ipv6: '2001:db8:85a3::', geo: { country: 'DEU' } });
      expect(got.user.id ?? got.user.buyeruid ?? got.user.yob ?? got.user.gender ?? got.user.eids ?? got.user.ext?.eids).toBeUndefined();
      expect(got.user.geo).toEqual({});
      expect(got.regs.coppa).toBe(1);
    }
  });

  it('US Privacy 1YYN scrubs ids and masks the IP; 1YNN does not', async () => {
    await ex.bid(request({ ext: { us_privacy: '1YYN' } }));
    const got = c.requests[0]!.body;
    expect(got.device).toEqual({ ...ID_FREE_DEVICE, ip: '203.0.113.0', ipv6: '2001:db8:85a3::', geo: request().device.geo });
    expect(got.user).toEqual({ yob: 1990, gender: 'F', geo: request().user.geo });
    expect(got.regs.ext.us_privacy).toBe('1YYN');
    // 2.6 location, output to a 2.6 partner top-level.
    expect(b.requests[0]!.body.regs).toEqual({ us_privacy: '1YYN' });
    for (const d of [a, b, c]) d.requests.length = 0;
    await ex.bid(request({ us_privacy: '1YNN' }));
    expect(c.requests[0]!.body.device).toEqual(request().device);
    expect(c.requests[0]!.body.user).toEqual(request().user);
    expect(c.requests[0]!.body.regs).toEqual({ ext: { us_privacy: '1YNN' } });
  });

  it('GPP US national and state opt-outs scrub ids and mask the IP; no opt-out changes nothing', async () => {
    await ex.bid(request({ gpp: gppUsNat({ saleOptOut: 1 }), gpp_sid: [7] }));
    expect(a.requests[0]!.body.device).toMatchObject({ ip: '203.0.113.0', ipv6: '2001:db8:85a3::' });
    expect(a.requests[0]!.body.device.ifa).toBeUndefined();
    expect(a.requests[0]!.body.regs.gpp_sid).toEqual([7]);
    for (const d of [a, b, c]) d.requests.length = 0;
    await ex.bid(request({ gpp: gppUsCa(1), gpp_sid: [8] }));
    expect(c.requests[0]!.body.user.id).toBeUndefined();
    for (const d of [a, b, c]) d.requests.length = 0;
    const noOptOut = gppUsNat({});
    await ex.bid(request({ gpp: noOptOut, gpp_sid: [7] }));
    expect(a.requests[0]!.body.device).toEqual(request().device);
    // GPP is a 2.6 field passed as it is, to 2.5 partners too.
    expect(a.requests[0]!.body.regs).toEqual({ gpp: noOptOut, gpp_sid: [7] });
  });

  it('GPP carrying the TCF string: GDPR decided from its TCF section when user.consent is absent', async () => {
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [22], specialFeatureOptins: [1] });
    const res = await ex.bid(request({ gpp: gppWithTcf(tc), gpp_sid: [2] }));
    expect(res.status).toBe(200);
    expect(a.requests).toHaveLength(0);
    expect(c.requests).toHaveLength(0);
    expect(b.requests[0]!.body.user.id).toBe('user-1');
  });

  it('device.lmt=1 scrubs ids only', async () => {
    const body = request();
    await ex.bid({ ...body, device: { ...body.device, lmt: 1 } });
    const got = c.requests[0]!.body;
    expect(got.device).toEqual({ ...ID_FREE_DEVICE, lmt: 1, ip: IP, ipv6: IPV6, geo: body.device.geo });
    expect(got.user.id).toBeUndefined();
  });

  it('supply chain: 2.6 source.schain on input is extended and placed per partner version', async () => {
    const upstream = { complete: 1, ver: '1.0', nodes: [{ asi: 'ssp.example', sid: 'seller-9', hp: 1 }] };
    await ex.bid(request({}, {}, { source: { tid: 't1', schain: upstream } }));
    const node = { asi: 'adx.example', sid: ex.publisherId, rid: 'priv-1', hp: 1 };
    expect(a.requests[0]!.body.source).toEqual({ tid: 't1', ext: { schain: { ...upstream, nodes: [...upstream.nodes, node] } } });
    expect(b.requests[0]!.body.source).toEqual({ tid: 't1', schain: { ...upstream, nodes: [...upstream.nodes, node] } });
    // 2.5 input location, 2.6 partner output.
    for (const d of [a, b, c]) d.requests.length = 0;
    await ex.bid(request({}, {}, { source: { ext: { schain: upstream } } }));
    expect(b.requests[0]!.body.source).toEqual({ schain: { ...upstream, nodes: [...upstream.nodes, node] } });
  });
});
