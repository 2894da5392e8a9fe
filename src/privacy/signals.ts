/**
 * Reading the privacy signals of a bid request (DESIGN section 11) from the OpenRTB 2.6
 * top-level location or the 2.5 `ext` one (section 5; the top-level one wins when both are
 * present):
 * - `regs.coppa` (COPPA; the same place in 2.5 and 2.6);
 * - `regs.gdpr` / `regs.ext.gdpr` (IAB GDPR Transparency and Consent extension);
 * - `user.consent` / `user.ext.consent` (the TCF v2 TC string);
 * - `regs.us_privacy` / `regs.ext.us_privacy` (IAB US Privacy string, e.g. `1YYN`);
 * - `regs.gpp` and `regs.gpp_sid` (IAB Global Privacy Platform, OpenRTB 2.6-202211; also read
 *   from `regs.ext` where some 2.5 senders put them);
 * - `device.lmt` (OpenRTB 2.5 section 3.2.18, "Limit Ad Tracking").
 *
 * The 2.5 `ext` values were type-checked by validation (a wrong type is a 400, section 2); a 2.6
 * value of the wrong type counts as its most protective value: GDPR applies, no consent string,
 * opted out, COPPA applies, tracking limited. Pure; reads, never changes, the request.
 */
import type { BidRequest } from '../domain/openrtb.js';

/** The raw privacy signals of one request, before any string is decoded. */
export interface PrivacySignals {
  /** `regs.coppa` is set (1, or any value other than 0/false/absent). */
  coppa: boolean;
  /**
   * Whether GDPR applies: `gdpr` is 1 (or a value of the wrong type); when `gdpr` is absent, true
   * if `gpp_sid` names the TCF EU v2 section (2), as Prebid Server does; else false.
   */
  gdpr: boolean;
  /** The TC string from `user.consent` / `user.ext.consent`; undefined when absent, empty or not a string. */
  tcString: string | undefined;
  /** The US Privacy string; undefined when absent. */
  usPrivacy: string | undefined;
  /** True when `us_privacy` is present but not a string (counts as opted out). */
  usPrivacyMalformed: boolean;
  /** The GPP string; undefined when absent. */
  gpp: string | undefined;
  /** True when `gpp` is present but not a string (counts as opted out). */
  gppMalformed: boolean;
  /** `gpp_sid`: the GPP section ids that apply; undefined when absent or not an array of integers. */
  gppSid: number[] | undefined;
  /** `device.lmt` is set (1, or any value other than 0/false/absent). */
  lmt: boolean;
}

type Obj = Record<string, unknown>;

function objectAt(value: unknown): Obj | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** The 2.6 top-level value when present (not undefined or null), else the 2.5 `ext` one. */
function pick(parent: Obj | undefined, key: string): unknown {
  if (!parent) return undefined;
  const top = parent[key];
  if (top !== undefined && top !== null) return top;
  const ext = objectAt(parent.ext);
  const inExt = ext?.[key];
  return inExt === null ? undefined : inExt;
}

/** A flag field: absent, null, 0, false and '0' are off; anything else is on (most protective). */
function flagOn(value: unknown): boolean {
  return !(value === undefined || value === null || value === 0 || value === false || value === '0');
}

/** The privacy signals of `request` (see the module comment for locations and precedence). */
export function readPrivacySignals(request: BidRequest): PrivacySignals {
  const regs = objectAt(request.regs);
  const user = objectAt(request.user);
  const device = objectAt(request.device);

  const sidRaw = pick(regs, 'gpp_sid');
  const gppSid = Array.isArray(sidRaw) && sidRaw.every((n) => Number.isInteger(n)) ? (sidRaw as number[]) : undefined;

  const gdprRaw = pick(regs, 'gdpr');
  const gdpr = gdprRaw === undefined ? (gppSid?.includes(2) ?? false) : gdprRaw !== 0;

  const consentRaw = pick(user, 'consent');
  const usRaw = pick(regs, 'us_privacy');
  const gppRaw = pick(regs, 'gpp');

  return {
    coppa: flagOn(regs?.coppa),
    gdpr,
    tcString: typeof consentRaw === 'string' && consentRaw !== '' ? consentRaw : undefined,
    usPrivacy: typeof usRaw === 'string' ? usRaw : undefined,
    usPrivacyMalformed: usRaw !== undefined && typeof usRaw !== 'string',
    gpp: typeof gppRaw === 'string' && gppRaw !== '' ? gppRaw : undefined,
    gppMalformed: gppRaw !== undefined && typeof gppRaw !== 'string',
    gppSid,
    lmt: flagOn(device?.lmt),
  };
}

/**
 * True when the US Privacy string says the user opted out of sale: its third character
 * ("Opt-Out Sale") is `Y` (IAB CCPA Compliance Framework, US Privacy String Format v1:
 * version, notice, opt-out sale, LSPA covered). `1YNN`, `1---` and strings too short are not.
 */
export function usPrivacyOptsOut(usPrivacy: string): boolean {
  return usPrivacy.length >= 3 && (usPrivacy[2] === 'Y' || usPrivacy[2] === 'y');
}
