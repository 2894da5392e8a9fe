/**
 * TCF v2 decoding (IAB Tech Lab Transparency and Consent Framework v2.2, "TC String" format),
 * done by the IAB Tech Lab's own library `@iabtechlabtcf/core` (DESIGN section 11: never by
 * hand), reduced to the three questions the exchange asks of it per vendor.
 */
import { RestrictionType, TCString, type TCModel } from '@iabtechlabtcf/core';

/** TCF purpose 1: "Store and/or access information on a device". */
export const PURPOSE_STORAGE = 1;
/** TCF purpose 2: "Use limited data to select advertising" (basic ads). */
export const PURPOSE_BASIC_ADS = 2;
/** TCF special feature 1: "Use precise geolocation data". */
export const SPECIAL_FEATURE_PRECISE_GEO = 1;

/** What a decoded TC string allows, per vendor (GVL id). */
export interface TcfConsent {
  /**
   * Purpose 2 (basic ads) for `vendorId`: purpose 2 consent with vendor consent, or purpose 2
   * legitimate interest with vendor legitimate interest; a publisher restriction on purpose 2
   * for the vendor narrows it (not allowed: neither; require consent: consent only; require
   * legitimate interest: legitimate interest only).
   */
  basicAds(vendorId: number): boolean;
  /** Purpose 1 (storage and access) consent with vendor consent, unless a publisher restriction forbids it. */
  storage(vendorId: number): boolean;
  /** Special feature 1 (precise geolocation) opted in. */
  readonly preciseGeo: boolean;
}

function restriction(tc: TCModel, vendorId: number, purposeId: number): RestrictionType | undefined {
  return tc.publisherRestrictions.getRestrictionType(vendorId, purposeId);
}

/** The consent view of a decoded model (see `TcfConsent`). */
function consentOf(tc: TCModel): TcfConsent {
  const preciseGeo = tc.specialFeatureOptins.has(SPECIAL_FEATURE_PRECISE_GEO);
  return {
    basicAds(vendorId) {
      const rule = restriction(tc, vendorId, PURPOSE_BASIC_ADS);
      if (rule === RestrictionType.NOT_ALLOWED) return false;
      const byConsent = tc.purposeConsents.has(PURPOSE_BASIC_ADS) && tc.vendorConsents.has(vendorId);
      const byInterest = tc.purposeLegitimateInterests.has(PURPOSE_BASIC_ADS) && tc.vendorLegitimateInterests.has(vendorId);
      if (rule === RestrictionType.REQUIRE_CONSENT) return byConsent;
      if (rule === RestrictionType.REQUIRE_LI) return byInterest;
      return byConsent || byInterest;
    },
    storage(vendorId) {
      if (restriction(tc, vendorId, PURPOSE_STORAGE) === RestrictionType.NOT_ALLOWED) return false;
      return tc.purposeConsents.has(PURPOSE_STORAGE) && tc.vendorConsents.has(vendorId);
    },
    preciseGeo,
  };
}

/**
 * Decodes a TC string. Answers undefined when the library cannot decode it or it is not a
 * version 2 string (a TCF v1 string, truncated or garbage): the caller treats that as no consent
 * at all. Never throws.
 */
export function decodeTcf(tcString: string): TcfConsent | undefined {
  try {
    const tc = TCString.decode(tcString);
    if (tc.version !== 2) return undefined;
    return consentOf(tc);
  } catch {
    return undefined;
  }
}
