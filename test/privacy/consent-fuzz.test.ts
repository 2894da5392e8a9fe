/**
 * The privacy rules never throw and never leak on hostile consent signals: valid strings cut at
 * every length, bit-flipped, and arbitrary values of any type in every signal location
 * (fast-check with a fixed seed). Whatever the input, a partner is either blocked or gets a copy,
 * and under GDPR a partner without a valid Purpose 2 basis is blocked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BidRequest } from '../../src/domain/openrtb.js';
import { createPrivacyEnforcer } from '../../src/privacy/index.js';
import { gppUsNat, gppWithTcf, tcString } from '../helpers/consent.js';

const SEED = Number(process.env.ADX_FUZZ_SEED ?? 20261124);
const enforcer = createPrivacyEnforcer({ cacheEntries: 64 });
const TC = tcString({ purposeConsents: [1, 2], vendorConsents: [11], specialFeatureOptins: [1] });
const VALID = [TC, gppUsNat({ saleOptOut: 1 }), gppWithTcf(TC)];

const base = (regs: unknown, user: unknown): BidRequest => ({
  id: 'f',
  imp: [{ id: '1', banner: { w: 1, h: 1 } }],
  device: { ip: '203.0.113.9', ifa: 'ifa' },
  regs: regs as Record<string, unknown>,
  user: user as Record<string, unknown>,
});

function decideAll(req: BidRequest): void {
  const p = enforcer.forRequest(req);
  for (const gvlVendorId of [null, 11, 22, 65535]) {
    const d = p.forPartner({ gvlVendorId });
    if (d.blocked === undefined) expect(d.request.imp).toBe(req.imp);
    if (p.signals.gdpr && gvlVendorId === null) expect(d.blocked).toBe('gdpr_no_vendor_id');
  }
}

describe('consent strings: truncated, flipped, garbage', () => {
  it('every prefix of a valid TC or GPP string is decided without throwing; a truncated TC string never grants vendor 22', () => {
    for (const s of VALID) {
      for (let n = 0; n <= s.length; n++) {
        const cut = s.slice(0, n);
        decideAll(base({ gdpr: 1, gpp: cut, gpp_sid: [2, 7] }, { consent: cut }));
        const d = enforcer.forRequest(base({ gdpr: 1 }, { consent: cut })).forPartner({ gvlVendorId: 22 });
        expect(d.blocked).toBeDefined();
      }
    }
  });

  it('arbitrary values in every signal location (fast-check)', () => {
    const anyValue = fc.oneof(fc.string(), fc.constantFrom(...VALID), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer({ min: -1, max: 30 })), fc.object());
    fc.assert(
      fc.property(anyValue, anyValue, anyValue, anyValue, anyValue, anyValue, (gdpr, consent, usp, gpp, sid, coppa) => {
        decideAll(base({ gdpr, us_privacy: usp, gpp, gpp_sid: sid, coppa, ext: { gdpr, us_privacy: usp } }, { consent, ext: { consent } }));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('bit flips of the valid strings (fast-check)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VALID), fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (s, at, ch) => {
        const i = at % s.length;
        const flipped = s.slice(0, i) + ch + s.slice(i + 1);
        decideAll(base({ gdpr: 1, gpp: flipped, gpp_sid: [2, 7] }, { consent: flipped }));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
