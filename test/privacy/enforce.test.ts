/**
 * Unit tests of the privacy rules (DESIGN section 11) on real consent strings: what each
 * partner's copy holds, and that the supply request and the other partners' copies stay as
 * they were.
 */
import { describe, expect, it } from 'vitest';
import type { BidRequest } from '../../src/domain/openrtb.js';
import { createPrivacyEnforcer, readPrivacySignals, Reduction, reduceRequest } from '../../src/privacy/index.js';
import { maskIp, maskIpv4, maskIpv6 } from '../../src/privacy/ip.js';
import { gppUsCa, gppUsNat, gppUspV1, gppWithTcf, tcString } from '../helpers/consent.js';

const personal = (): BidRequest => ({
  id: 'r1',
  imp: [{ id: '1', banner: { w: 300, h: 250 } }],
  site: { domain: 'pub.example' },
  device: {
    ip: '203.0.113.77',
    ipv6: '2001:db8:85a3:8d3:1319:8a2e:370:7348',
    ifa: 'ifa-1',
    didsha1: 'd1',
    didmd5: 'd2',
    dpidsha1: 'd3',
    dpidmd5: 'd4',
    macsha1: 'm1',
    macmd5: 'm2',
    ua: 'Mozilla/5.0',
    geo: { lat: 52.520008, lon: 13.404954, city: 'Berlin', zip: '10117', metro: '0', country: 'DEU' },
  },
  user: { id: 'u1', buyeruid: 'b1', yob: 1990, gender: 'F', eids: [{ source: 'id5', uids: [{ id: 'e1' }] }], ext: { eids: [{ source: 'x', uids: [{ id: 'e2' }] }], other: 1 }, geo: { lat: 1.23456, lon: 2.34567, zip: '1' } },
});

const enforcer = createPrivacyEnforcer();

describe('IP masking', () => {
  it('IPv4 keeps 24 bits, IPv6 48 bits', () => {
    expect(maskIpv4('203.0.113.77')).toBe('203.0.113.0');
    expect(maskIpv6('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::');
    expect(maskIpv6('2001:0db8:0000:0042::8a2e:0370:7334')).toBe('2001:db8::');
    expect(maskIpv6('2001:db8::1')).toBe('2001:db8::');
    expect(maskIpv6('::1')).toBe('::');
    expect(maskIpv6('::ffff:192.0.2.1')).toBe('::');
    expect(maskIpv6('fe80:1:2:3::1%eth0')).toBe('fe80:1:2::');
    expect(maskIpv6('1:2:3:4:5:6:1.2.3.4')).toBe('1:2:3::');
    expect(maskIp('not an ip')).toBeUndefined();
    expect(maskIp('2001:db8:1::9')).toBe('2001:db8:1::');
  });
});

describe('signals', () => {
  it('2.6 top-level wins over 2.5 ext; a 2.6 value of the wrong type is the most protective', () => {
    const s = readPrivacySignals({ id: 'x', imp: [], regs: { gdpr: 1, ext: { gdpr: 0, us_privacy: '1YNN' }, us_privacy: '1YYN' }, user: { consent: 'top', ext: { consent: 'ext' } } });
    expect(s).toMatchObject({ gdpr: true, tcString: 'top', usPrivacy: '1YYN' });
    expect(readPrivacySignals({ id: 'x', imp: [], regs: { ext: { gdpr: 1, us_privacy: '1YNN' } }, user: { ext: { consent: 'ext' } } })).toMatchObject({ gdpr: true, tcString: 'ext', usPrivacy: '1YNN' });
    expect(readPrivacySignals({ id: 'x', imp: [], regs: { gdpr: 'yes', us_privacy: 7 }, user: { consent: 5 } })).toMatchObject({ gdpr: true, tcString: undefined, usPrivacyMalformed: true });
    expect(readPrivacySignals({ id: 'x', imp: [], regs: { gpp_sid: [2] } }).gdpr).toBe(true);
    expect(readPrivacySignals({ id: 'x', imp: [], regs: { gdpr: 0, gpp_sid: [2] } }).gdpr).toBe(false);
  });
});

describe('per-partner decisions', () => {
  it('GDPR: consent for vendor 11, not 22: 11 gets its copy with the string unchanged, 22 is blocked; the supply request is untouched', () => {
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [11], specialFeatureOptins: [1] });
    const req = { ...personal(), regs: { gdpr: 1 }, user: { ...personal().user, consent: tc } };
    const before = structuredClone(req);
    const p = enforcer.forRequest(req);
    const a = p.forPartner({ gvlVendorId: 11 });
    expect(a.blocked).toBeUndefined();
    expect(a.blocked === undefined && a.request).toBe(req); // nothing to reduce: the request itself
    expect(p.forPartner({ gvlVendorId: 22 })).toEqual({ blocked: 'gdpr_purpose2_denied' });
    expect(p.forPartner({ gvlVendorId: null })).toEqual({ blocked: 'gdpr_no_vendor_id' });
    expect(req).toEqual(before);
  });

  it('purpose 2 by legitimate interest; purpose 1 refused scrubs ids; special feature 1 absent coarsens geo', () => {
    const tc = tcString({ purposeLegitimateInterests: [2], vendorLegitimateInterests: [11] });
    const req = { ...personal(), regs: { ext: { gdpr: 1 } }, user: { ...personal().user, ext: { consent: tc, eids: [{ source: 'x' }] } } };
    const before = structuredClone(req);
    const d = enforcer.forRequest(req).forPartner({ gvlVendorId: 11 });
    if (d.blocked) throw new Error('blocked');
    expect(d.reductions).toBe(Reduction.scrubIds | Reduction.coarsenGeo);
    expect(d.request.user).toEqual({ yob: 1990, gender: 'F', ext: { consent: tc }, geo: { lat: 1.23, lon: 2.35, zip: '1' } });
    expect(d.request.device).toEqual({ ip: '203.0.113.77', ipv6: '2001:db8:85a3:8d3:1319:8a2e:370:7348', ua: 'Mozilla/5.0', geo: { lat: 52.52, lon: 13.4, city: 'Berlin', zip: '10117', metro: '0', country: 'DEU' } });
    expect(req).toEqual(before);
  });

  it('missing and undecodable strings under GDPR block every partner; GDPR 0 changes nothing', () => {
    expect(enforcer.forRequest({ ...personal(), regs: { gdpr: 1 } }).forPartner({ gvlVendorId: 11 })).toEqual({ blocked: 'gdpr_no_consent_string' });
    const bad = { ...personal(), regs: { gdpr: 1 }, user: { consent: 'COwhatever-garbage' } };
    expect(enforcer.forRequest(bad).forPartner({ gvlVendorId: 11 })).toEqual({ blocked: 'gdpr_invalid_consent_string' });
    const off = { ...personal(), regs: { gdpr: 0 }, user: { consent: 'garbage' } };
    const d = enforcer.forRequest(off).forPartner({ gvlVendorId: null });
    expect(d).toEqual({ request: off, reductions: 0 });
  });

  it('COPPA removes every field of section 11', () => {
    const req = { ...personal(), regs: { coppa: 1 } };
    const d = enforcer.forRequest(req).forPartner({ gvlVendorId: null });
    if (d.blocked) throw new Error('blocked');
    expect(d.request.device).toEqual({ ip: '203.0.113.0', ipv6: '2001:db8:85a3::', ua: 'Mozilla/5.0', geo: { country: 'DEU' } });
    expect(d.request.user).toEqual({ ext: { other: 1 }, geo: {} });
  });

  it('US Privacy 1YYN opts out (ids scrubbed, IP masked), 1YNN does not; GPP US sections likewise', () => {
    const reductions = (regs: Record<string, unknown>) => {
      const d = enforcer.forRequest({ ...personal(), regs }).forPartner({ gvlVendorId: null });
      if (d.blocked) throw new Error('blocked');
      return d.reductions;
    };
    expect(reductions({ us_privacy: '1YYN' })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ ext: { us_privacy: '1YYN' } })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ us_privacy: '1YNN' })).toBe(0);
    expect(reductions({ gpp: gppUsNat({ saleOptOut: 1 }), gpp_sid: [7] })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ gpp: gppUsNat({ targetedAdvertisingOptOut: 1 }), gpp_sid: [7] })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ gpp: gppUsNat({}), gpp_sid: [7] })).toBe(0);
    expect(reductions({ gpp: gppUsCa(1), gpp_sid: [8] })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ gpp: gppUspV1('Y'), gpp_sid: [6] })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ gpp: gppUspV1('N'), gpp_sid: [6] })).toBe(0);
    // The opted-out section does not apply to this request.
    expect(reductions({ gpp: gppUsCa(1), gpp_sid: [7] })).toBe(0);
    // Undecodable GPP naming a US section: most protective.
    expect(reductions({ gpp: 'DBABL~garbage', gpp_sid: [7] })).toBe(Reduction.scrubIds | Reduction.maskIp);
    expect(reductions({ lmt: 1 } as never)).toBe(0);
    const lmt = enforcer.forRequest({ ...personal(), device: { ...personal().device, lmt: 1 } }).forPartner({ gvlVendorId: null });
    expect(lmt.blocked === undefined && lmt.reductions).toBe(Reduction.scrubIds);
  });

  it('publisher restrictions narrow the legal basis: not allowed blocks, require consent ignores legitimate interest', () => {
    const decide = (spec: Parameters<typeof tcString>[0], vendor: number) => enforcer.forRequest({ ...personal(), regs: { gdpr: 1 }, user: { consent: tcString(spec) } }).forPartner({ gvlVendorId: vendor });
    const grant = { purposeConsents: [1, 2], vendorConsents: [11], purposeLegitimateInterests: [2], vendorLegitimateInterests: [22] };
    expect(decide(grant, 11).blocked).toBeUndefined();
    expect(decide({ ...grant, restrictions: [{ vendorId: 11, purposeId: 2, type: 0 }] }, 11)).toEqual({ blocked: 'gdpr_purpose2_denied' });
    expect(decide(grant, 22).blocked).toBeUndefined();
    expect(decide({ ...grant, restrictions: [{ vendorId: 22, purposeId: 2, type: 1 }] }, 22)).toEqual({ blocked: 'gdpr_purpose2_denied' });
    // Purpose 1 not allowed for 11: still called, ids scrubbed.
    const d = decide({ ...grant, specialFeatureOptins: [1], restrictions: [{ vendorId: 11, purposeId: 1, type: 0 }] }, 11);
    expect(d.blocked === undefined && d.reductions).toBe(Reduction.scrubIds);
  });

  it('GPP carrying the TCF string decides GDPR when user.consent is absent', () => {
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [11], specialFeatureOptins: [1] });
    const p = enforcer.forRequest({ ...personal(), regs: { gpp: gppWithTcf(tc), gpp_sid: [2] } });
    expect(p.signals.gdpr).toBe(true);
    expect(p.forPartner({ gvlVendorId: 11 }).blocked).toBeUndefined();
    expect(p.forPartner({ gvlVendorId: 22 })).toEqual({ blocked: 'gdpr_purpose2_denied' });
  });

  it('partners with the same reductions share one copy; reduceRequest(…, 0) is the request', () => {
    const tc = tcString({ purposeConsents: [2], vendorConsents: [11, 22] });
    const p = enforcer.forRequest({ ...personal(), regs: { gdpr: 1 }, user: { consent: tc } });
    const a = p.forPartner({ gvlVendorId: 11 });
    const b = p.forPartner({ gvlVendorId: 22 });
    expect(a.blocked === undefined && b.blocked === undefined && a.request === b.request).toBe(true);
    const r = personal();
    expect(reduceRequest(r, 0)).toBe(r);
  });
});
