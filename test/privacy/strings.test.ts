import { describe, expect, it } from 'vitest';
import { decodeGpp } from '../../src/privacy/gpp.js';
import { decodeTcf } from '../../src/privacy/tcf.js';
import { gppUsCa, gppUsNat, gppWithTcf, tcString } from '../helpers/consent.js';

describe('consent strings built by the IAB libraries decode as built', () => {
  it('TC string', () => {
    const tc = tcString({ purposeConsents: [1, 2], vendorConsents: [11], purposeLegitimateInterests: [2], vendorLegitimateInterests: [22], specialFeatureOptins: [1] });
    const c = decodeTcf(tc)!;
    expect(c).toBeDefined();
    expect(c.basicAds(11)).toBe(true);
    expect(c.basicAds(22)).toBe(true);
    expect(c.basicAds(33)).toBe(false);
    expect(c.storage(11)).toBe(true);
    expect(c.storage(22)).toBe(false);
    expect(c.preciseGeo).toBe(true);
  });
  it('GPP', () => {
    expect(decodeGpp(gppUsNat({ saleOptOut: 1 }))).toMatchObject({ sectionIds: [7], optOutSectionIds: [7] });
    expect(decodeGpp(gppUsNat({}))).toMatchObject({ sectionIds: [7], optOutSectionIds: [] });
    expect(decodeGpp(gppUsCa(1))).toMatchObject({ sectionIds: [8], optOutSectionIds: [8] });
    const tc = tcString({ purposeConsents: [2], vendorConsents: [11] });
    const g = decodeGpp(gppWithTcf(tc))!;
    expect(g.sectionIds).toEqual([2]);
    expect(decodeTcf(g.tcString!)!.basicAds(11)).toBe(true);
  });
  it('garbage and truncated', () => {
    const tc = tcString({ purposeConsents: [2], vendorConsents: [11] });
    expect(decodeTcf('garbage')).toBeUndefined();
    expect(decodeTcf(tc.slice(0, 12))).toBeUndefined();
    expect(decodeGpp('zzzz~!!')).toBeUndefined();
  });
});
