/**
 * Per-partner privacy enforcement (DESIGN section 11). `forRequest` reads and decodes a request's
 * signals once (consent strings through bounded caches keyed by the string: decoding is a pure
 * function of it); `forPartner` then answers, per partner, either that the partner must not be
 * called (and why) or its own reduced copy of the request. The supply request is never changed,
 * and a rule never turns a request into an error.
 *
 * Rules, in the section's words:
 * - COPPA (`regs.coppa=1`): scrub ids, mask the IP, remove child data (`Reduction.childData`).
 * - GDPR applies: a partner without `gvl_vendor_id` is not called; with one, it is called only if
 *   the TC string is valid and gives Purpose 2 for that vendor (consent, or legitimate interest);
 *   without Purpose 1 consent for the vendor: scrub ids; without Special Feature 1: coarsen geo.
 *   A missing or undecodable string gives no consent at all. The string is forwarded unchanged.
 *   The TC string is `user.consent`, else the GPP TCF EU v2 section when `gpp_sid` includes 2.
 * - US opt-out (`us_privacy` third character `Y`, or a GPP US section with a sale, sharing or
 *   targeted-advertising opt-out): scrub ids and mask the IP.
 * - `device.lmt=1`: scrub ids.
 */
import type { BidRequest } from '../domain/openrtb.js';
import type { DemandPartnerRecord } from '../storage/ports.js';
import { GPP_SECTION_TCF_EU_V2, decodeGpp, isUsSection, type GppSummary } from './gpp.js';
import { createLruCache } from './lru-cache.js';
import { Reduction, reduceRequest } from './scrub.js';
import { readPrivacySignals, usPrivacyOptsOut, type PrivacySignals } from './signals.js';
import { decodeTcf, type TcfConsent } from './tcf.js';

/**
 * Why a partner was not called (the `reason` label of `adx_privacy_blocked_total`):
 * - `gdpr_no_vendor_id`: GDPR applies and the partner has no `gvl_vendor_id`;
 * - `gdpr_no_consent_string`: GDPR applies and the request carries no TC string;
 * - `gdpr_invalid_consent_string`: the TC string cannot be decoded (truncated, garbage, TCF v1);
 * - `gdpr_purpose2_denied`: the string gives the vendor no Purpose 2 (basic ads) legal basis.
 */
export type PrivacyBlockReason = 'gdpr_no_vendor_id' | 'gdpr_no_consent_string' | 'gdpr_invalid_consent_string' | 'gdpr_purpose2_denied';

/** Every `PrivacyBlockReason`, for metrics and docs. */
export const PRIVACY_BLOCK_REASONS: readonly PrivacyBlockReason[] = ['gdpr_no_vendor_id', 'gdpr_no_consent_string', 'gdpr_invalid_consent_string', 'gdpr_purpose2_denied'];

/** What one partner gets: nothing (blocked, with the reason), or its reduced copy. */
export type PartnerPrivacy =
  | { blocked: PrivacyBlockReason }
  | {
      blocked?: undefined;
      /** The partner's copy: the supply request itself when no reduction applies (never mutate it). */
      request: BidRequest;
      /** The `Reduction` flags applied (0 = none). */
      reductions: number;
    };

/** A request's privacy, decoded once; asked once per partner. */
export interface RequestPrivacy {
  /** The signals as read from the request. */
  readonly signals: PrivacySignals;
  /** Reductions every partner gets whatever its vendor id (COPPA, US opt-out, `device.lmt`). */
  readonly baseReductions: number;
  /** The decision for a partner (by its `gvlVendorId`). Pure; copies are shared between partners with the same reductions. */
  forPartner(partner: Pick<DemandPartnerRecord, 'gvlVendorId'>): PartnerPrivacy;
}

/** Reads and decodes requests' privacy signals, with bounded decode caches. */
export interface PrivacyEnforcer {
  /** Reads `request`'s signals and decodes its strings (cached by string). Never throws. */
  forRequest(request: BidRequest): RequestPrivacy;
}

/** Options of `createPrivacyEnforcer`. */
export interface PrivacyEnforcerOptions {
  /** Distinct TC strings and GPP strings kept decoded, each (default 1000). */
  cacheEntries?: number;
}

/** Stands for "decoded and invalid" in the caches (whose `get` answers undefined for "not cached"). */
const INVALID = null;

/** The GDPR outcome of a request, before any partner. */
type Gdpr =
  | { applies: false }
  | { applies: true; consent: TcfConsent; missing?: undefined }
  | { applies: true; consent: undefined; missing: 'gdpr_no_consent_string' | 'gdpr_invalid_consent_string' };

/** Builds an enforcer whose decode caches live as long as it does. */
export function createPrivacyEnforcer(options: PrivacyEnforcerOptions = {}): PrivacyEnforcer {
  const entries = options.cacheEntries ?? 1000;
  const tcfCache = createLruCache<TcfConsent | typeof INVALID>(entries);
  const gppCache = createLruCache<GppSummary | typeof INVALID>(entries);

  const tcf = (tcString: string): TcfConsent | undefined => {
    let decoded = tcfCache.get(tcString);
    if (decoded === undefined) {
      decoded = decodeTcf(tcString) ?? INVALID;
      tcfCache.set(tcString, decoded);
    }
    return decoded ?? undefined;
  };
  const gpp = (gppString: string): GppSummary | undefined => {
    let decoded = gppCache.get(gppString);
    if (decoded === undefined) {
      decoded = decodeGpp(gppString) ?? INVALID;
      gppCache.set(gppString, decoded);
    }
    return decoded ?? undefined;
  };

  return {
    forRequest(request) {
      const signals = readPrivacySignals(request);
      const decodedGpp = signals.gpp !== undefined ? gpp(signals.gpp) : undefined;

      let base = 0;
      if (signals.coppa) base |= Reduction.scrubIds | Reduction.maskIp | Reduction.childData;
      if (signals.lmt) base |= Reduction.scrubIds;
      if (usOptOut(signals, decodedGpp)) base |= Reduction.scrubIds | Reduction.maskIp;

      const gdpr = gdprOf(signals, decodedGpp, tcf);
      const copies = new Map<number, BidRequest>();
      const copy = (flags: number): BidRequest => {
        let reduced = copies.get(flags);
        if (!reduced) {
          reduced = reduceRequest(request, flags);
          copies.set(flags, reduced);
        }
        return reduced;
      };

      return {
        signals,
        baseReductions: base,
        forPartner(partner) {
          if (!gdpr.applies) return { request: copy(base), reductions: base };
          const vendorId = partner.gvlVendorId;
          if (vendorId === null || vendorId === undefined) return { blocked: 'gdpr_no_vendor_id' };
          if (gdpr.consent === undefined) return { blocked: gdpr.missing };
          if (!gdpr.consent.basicAds(vendorId)) return { blocked: 'gdpr_purpose2_denied' };
          let flags = base;
          if (!gdpr.consent.storage(vendorId)) flags |= Reduction.scrubIds;
          if (!gdpr.consent.preciseGeo) flags |= Reduction.coarsenGeo;
          return { request: copy(flags), reductions: flags };
        },
      };
    },
  };
}

/**
 * US opt-out: `us_privacy` opting out of sale (or not a string); a GPP string not a string; a
 * decoded GPP string with an opted-out US section among those `gpp_sid` names (all present
 * sections without `gpp_sid`); an undecodable GPP string when `gpp_sid` names a US section or is
 * absent (most protective).
 */
function usOptOut(signals: PrivacySignals, decodedGpp: GppSummary | undefined): boolean {
  if (signals.usPrivacyMalformed || signals.gppMalformed) return true;
  if (signals.usPrivacy !== undefined && usPrivacyOptsOut(signals.usPrivacy)) return true;
  if (signals.gpp === undefined) return false;
  const sid = signals.gppSid;
  if (decodedGpp === undefined) return sid === undefined || sid.some(isUsSection);
  return decodedGpp.optOutSectionIds.some((id) => sid === undefined || sid.includes(id));
}

/** Whether GDPR applies and, if so, the decoded consent (or why there is none). */
function gdprOf(signals: PrivacySignals, decodedGpp: GppSummary | undefined, tcf: (s: string) => TcfConsent | undefined): Gdpr {
  if (!signals.gdpr) return { applies: false };
  let tcString = signals.tcString;
  if (tcString === undefined && signals.gppSid?.includes(GPP_SECTION_TCF_EU_V2)) {
    if (signals.gpp !== undefined && decodedGpp === undefined) return { applies: true, consent: undefined, missing: 'gdpr_invalid_consent_string' };
    tcString = decodedGpp?.tcString;
  }
  if (tcString === undefined) return { applies: true, consent: undefined, missing: 'gdpr_no_consent_string' };
  const consent = tcf(tcString);
  return consent ? { applies: true, consent } : { applies: true, consent: undefined, missing: 'gdpr_invalid_consent_string' };
}
