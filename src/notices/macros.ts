/**
 * OpenRTB 2.5 substitution macros (section 4.4) for partners' `nurl`, `burl`, `lurl` and markup.
 *
 * The spec's rules as applied here:
 * - "wherever a legal macro is found, it will be replaced without regard for syntax correctness";
 * - "if the source value is an optional parameter that was not specified, the macro will simply
 *   be removed (i.e., replaced with a zero-length string)": a macro of the 2.5 list whose value
 *   is not given becomes the empty string;
 * - `${AUCTION_MIN_TO_WIN}` (OpenRTB 2.6 section 4.4, the minimum bid that would have won, in the
 *   bid's currency) is resolved like the 2.5 list: a 2.5 partner that never asked for it never
 *   sees it, and where the exchange has no value (a winner's notices) it becomes empty;
 * - anything else in `${...}` (custom `${CUSTOM_KEY}` macros, lower-case names) is not ours to
 *   resolve and is left as it is;
 * - the `:X` suffix asks for an encoded value; the algorithm is agreed between exchange and
 *   bidder. `:B64` (base64 of the value, as Prebid Server does) is supported; other suffixes are
 *   left as they are.
 * Creatives often carry macros percent-encoded (`%24%7BAUCTION_PRICE%7D`), so that form is
 * replaced too (hex digits in either case; the macro name is case-sensitive, upper case).
 * Values are made URL-safe with `encodeURIComponent`, since macros almost always sit in URLs.
 */
import { MICROS_PER_UNIT, type Micros } from '../domain/money.js';

/**
 * Values for the 2.5 macros. Every field is optional; a macro whose value is absent becomes the
 * empty string (section 4.4).
 */
export interface MacroValues {
  /** `${AUCTION_ID}`: id of the bid request (for a partner: the request sent to it). */
  auctionId?: string;
  /** `${AUCTION_BID_ID}`: id of the bid (the partner's `bid.id`). */
  bidId?: string;
  /** `${AUCTION_IMP_ID}`: `imp.id`. */
  impId?: string;
  /** `${AUCTION_SEAT_ID}`: the bidder seat. */
  seatId?: string;
  /** `${AUCTION_AD_ID}`: the bid's `adid`. */
  adId?: string;
  /** `${AUCTION_PRICE}`: clearing price as CPM micros, in the bid's currency; written as a decimal. */
  priceMicros?: Micros;
  /** `${AUCTION_CURRENCY}`: ISO-4217 currency of the bid. */
  currency?: string;
  /** `${AUCTION_MBR}`: market bid ratio, clearing price / bid price (a decimal). */
  mbr?: number;
  /** `${AUCTION_LOSS}`: loss reason code (OpenRTB 2.5 list 5.25). */
  loss?: number;
  /** `${AUCTION_MIN_TO_WIN}` (OpenRTB 2.6): the lowest CPM that would have won, micros in the bid's currency. */
  minToWinMicros?: Micros;
}

/** The 2.5 macro names and the `MacroValues` field each one reads. */
const MACRO_FIELDS: ReadonlyMap<string, keyof MacroValues> = new Map<string, keyof MacroValues>([
  ['AUCTION_ID', 'auctionId'],
  ['AUCTION_BID_ID', 'bidId'],
  ['AUCTION_IMP_ID', 'impId'],
  ['AUCTION_SEAT_ID', 'seatId'],
  ['AUCTION_AD_ID', 'adId'],
  ['AUCTION_PRICE', 'priceMicros'],
  ['AUCTION_CURRENCY', 'currency'],
  ['AUCTION_MBR', 'mbr'],
  ['AUCTION_LOSS', 'loss'],
  ['AUCTION_MIN_TO_WIN', 'minToWinMicros'],
]);

/**
 * `${NAME}` or `${NAME:B64}` (groups 1, 2), or the percent-encoded `%24%7BNAME%7D` /
 * `%24%7BNAME%3AB64%7D` (groups 3, 4). Compiled once; used through `matchAll`, which works on a
 * copy, so this object's `lastIndex` is never shared state.
 */
const MACRO_PATTERN = /\$\{([A-Z_]+)(?::(B64))?\}|%24%7[Bb]([A-Z_]+)(?:%3[Aa](B64))?%7[Dd]/g;

/** Digits kept when writing a decimal ratio (`${AUCTION_MBR}`). */
const RATIO_DECIMALS = 6;

/**
 * Replaces the OpenRTB 2.5 section 4.4 macros in `template` with `values` (see the module
 * comment for the rules), in one pass. Strings are written with `encodeURIComponent`; prices as
 * decimal CPM (`formatCpm`); ratios as decimals without exponent. Never throws.
 */
export function substituteMacros(template: string, values: MacroValues): string {
  // Most markup and URLs carry no macro at all: skip the regex machinery for them.
  if (template.indexOf('${') === -1 && template.indexOf('%24') === -1) return template;
  let out = '';
  let last = 0;
  for (const match of template.matchAll(MACRO_PATTERN)) {
    const name = match[1] ?? match[3] ?? '';
    const field = MACRO_FIELDS.get(name);
    if (field === undefined) continue; // not a 2.5 macro: left as it is
    const b64 = (match[2] ?? match[4]) !== undefined;
    const start = match.index ?? 0;
    out += template.slice(last, start) + macroValue(values, field, b64);
    last = start + match[0].length;
  }
  return last === 0 ? template : out + template.slice(last);
}

function macroValue(values: MacroValues, field: keyof MacroValues, b64: boolean): string {
  const value = values[field];
  if (value === undefined || value === null) return '';
  let text: string;
  if (field === 'priceMicros' || field === 'minToWinMicros') text = formatCpm(value as number);
  else if (field === 'mbr') text = formatDecimal(value as number, RATIO_DECIMALS);
  else if (field === 'loss') text = Number.isFinite(value) ? String(Math.trunc(value as number)) : '';
  else text = String(value);
  if (b64 && text !== '') text = Buffer.from(text, 'utf8').toString('base64');
  return urlEncode(text);
}

/** Lone UTF-16 surrogates, which `encodeURIComponent` refuses (URIError). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function urlEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'));
  }
}

/**
 * CPM micros as a decimal string, exact, without exponent and without trailing zeros:
 * 1_230_000 -> "1.23", 500_000 -> "0.5", 2_000_000 -> "2", 1 -> "0.000001", -500_000 -> "-0.5".
 * A non-integer input is rounded to whole micros first; a non-finite input answers "".
 */
export function formatCpm(micros: Micros): string {
  if (!Number.isFinite(micros)) return '';
  const rounded = Math.round(Math.abs(micros));
  if (rounded === 0) return '0';
  const sign = micros < 0 ? '-' : '';
  let whole: string;
  let frac: number;
  if (Number.isSafeInteger(rounded)) {
    whole = String(Math.floor(rounded / MICROS_PER_UNIT));
    frac = rounded % MICROS_PER_UNIT;
  } else {
    // Beyond 2^53 String() may switch to exponent form (from 1e21): use exact BigInt arithmetic.
    const big = BigInt(rounded);
    whole = (big / BigInt(MICROS_PER_UNIT)).toString();
    frac = Number(big % BigInt(MICROS_PER_UNIT));
  }
  if (frac === 0) return sign + whole;
  return `${sign}${whole}.${String(frac).padStart(6, '0').replace(/0+$/, '')}`;
}

/**
 * A finite number as a plain decimal with at most `maxDecimals` digits after the point, never in
 * exponent form and without trailing zeros: 0.0000001 -> "0" (6 decimals), 1e21 ->
 * "1000000000000000000000", 0.25 -> "0.25". A non-finite input answers "".
 */
export function formatDecimal(value: number, maxDecimals: number): string {
  if (!Number.isFinite(value)) return '';
  // toFixed writes exponent form from 1e21 on; numbers that large are integers, so BigInt is exact.
  let text = Math.abs(value) >= 1e21 ? BigInt(value).toString() : value.toFixed(maxDecimals);
  if (text.includes('.')) text = text.replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}
