/**
 * The request's ad-quality rules (DESIGN section 4 "Ad quality"; OpenRTB 2.5 sections 3.2.1
 * `bseat`, `wseat`, `badv`, `bcat`, `bapp`, 3.2.4 `secure`, 3.2.6-3.2.9 `battr`, list 5.1 IAB
 * categories, list 5.3 creative attributes), read once per request and checked per bid by
 * `bid-filters.ts`. Each rule broken is a loss reason (list 5.25): 104 buyer seat blocked, 205
 * advertiser exclusions, 209 category exclusions, 206 app bundle exclusions, 210 attribute
 * exclusions, 207 not secure.
 */
import type { BidRequest, Imp } from '../domain/openrtb.js';

/** The request-level block and allow lists, normalized for comparison. */
export interface RequestBlocks {
  /** `bseat`: buyer seats that may not bid. */
  blockedSeats: ReadonlySet<string>;
  /** `wseat`: the only buyer seats that may bid; undefined when absent or empty (every seat). */
  allowedSeats: ReadonlySet<string> | undefined;
  /** `badv`: advertiser domains, trimmed and lower-cased (exact match). */
  blockedDomains: ReadonlySet<string>;
  /** `bcat`: IAB content categories, trimmed; a parent (`IAB1`) blocks its children (`IAB1-2`). */
  blockedCategories: readonly string[];
  /** `bapp`: app bundles or package names (exact match). */
  blockedApps: ReadonlySet<string>;
}

/** The non-blank strings of `value` (when it is an array) after `map`. */
function stringSet(value: unknown, map: (s: string) => string = (s) => s.trim()): Set<string> {
  const out = new Set<string>();
  if (Array.isArray(value)) {
    for (const entry of value) {
      if (typeof entry === 'string' && entry.trim() !== '') out.add(map(entry));
    }
  }
  return out;
}

/** An advertiser domain as compared with `badv`: trimmed and lower-cased. */
export function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase();
}

/** Reads the request's block and allow lists. Entries that are not non-blank strings are ignored. Never throws. */
export function buildRequestBlocks(request: BidRequest): RequestBlocks {
  const allowedSeats = stringSet(request.wseat);
  return {
    blockedSeats: stringSet(request.bseat),
    allowedSeats: allowedSeats.size > 0 ? allowedSeats : undefined,
    blockedDomains: stringSet(request.badv, normalizeDomain),
    blockedCategories: [...stringSet(request.bcat)],
    blockedApps: stringSet(request.bapp),
  };
}

/** True when `seat` may bid under `bseat`/`wseat` (a seat in both lists is blocked). */
export function seatAllowed(seat: string, blocks: RequestBlocks): boolean {
  if (blocks.blockedSeats.has(seat)) return false;
  return blocks.allowedSeats === undefined || blocks.allowedSeats.has(seat);
}

/** True when an `adomain` entry of the bid is in `blocked` (case-insensitive, exact domain). */
export function hasBlockedDomain(adomain: unknown, blocked: ReadonlySet<string>): boolean {
  if (blocked.size === 0 || !Array.isArray(adomain)) return false;
  for (const domain of adomain) {
    if (typeof domain === 'string' && blocked.has(normalizeDomain(domain))) return true;
  }
  return false;
}

/**
 * True when a `cat` entry of the bid is blocked: equal to a `bcat` entry, or a child of one
 * (IAB list 5.1: `IAB1-2` is a child of `IAB1`, so `bcat: ["IAB1"]` blocks it; `IAB1` itself is
 * not blocked by `bcat: ["IAB1-2"]`). Case-sensitive, as the list's codes are.
 */
export function hasBlockedCategory(cat: unknown, blocked: readonly string[]): boolean {
  if (blocked.length === 0 || !Array.isArray(cat)) return false;
  for (const entry of cat) {
    if (typeof entry !== 'string') continue;
    const code = entry.trim();
    for (const b of blocked) {
      if (code === b || code.startsWith(`${b}-`)) return true;
    }
  }
  return false;
}

/** True when the bid's `bundle` is in `bapp`. */
export function hasBlockedApp(bundle: unknown, blocked: ReadonlySet<string>): boolean {
  return blocked.size > 0 && typeof bundle === 'string' && blocked.has(bundle.trim());
}

/**
 * The creative attributes (list 5.3) the imp blocks: `battr` of each media object the imp
 * offers (banner, video, audio, native), united. A bid with any of them in `attr` is dropped.
 */
export function blockedAttributesOf(imp: Imp): ReadonlySet<number> {
  const out = new Set<number>();
  for (const media of [imp.banner, imp.video, imp.audio, imp.native] as unknown[]) {
    if (media === null || typeof media !== 'object') continue;
    const battr = (media as { battr?: unknown }).battr;
    if (!Array.isArray(battr)) continue;
    for (const a of battr) if (typeof a === 'number' && Number.isInteger(a)) out.add(a);
  }
  return out;
}

/** True when the bid's `attr` has an attribute in `blocked`. */
export function hasBlockedAttribute(attr: unknown, blocked: ReadonlySet<number>): boolean {
  if (blocked.size === 0 || !Array.isArray(attr)) return false;
  return attr.some((a) => typeof a === 'number' && blocked.has(a));
}

/**
 * `http://` where markup loads a resource. A secure imp (`imp.secure = 1`) needs every resource
 * the creative loads over https; navigation targets (`href="http://..."`, a VAST
 * `<ClickThrough>`) and XML namespace names (`xmlns="http://www.iab.com/VAST"`) load nothing and
 * are allowed. Anything else naming an `http://` URL (`src`, `srcset`, `poster`, `data`, CSS `url()`,
 * script strings, VAST `<MediaFile>`/tracker text and CDATA) counts as loading it.
 */
const INSECURE_URL = /http:\/\//gi;
const NAVIGATION_BEFORE = /(?:\bhref\s*=\s*["']?|\bxmlns(?::[\w.-]+)?\s*=\s*["']|<ClickThrough(?:\s[^>]*)?>\s*(?:<!\[CDATA\[)?)\s*$/i;

/** True when `adm` loads a resource over plain http (see above). Case-insensitive. */
export function loadsInsecureResource(adm: string): boolean {
  if (adm.search(/http:\/\//i) === -1) return false;
  for (const match of adm.matchAll(INSECURE_URL)) {
    const start = match.index ?? 0;
    if (!NAVIGATION_BEFORE.test(adm.slice(Math.max(0, start - 48), start))) return true;
  }
  return false;
}
