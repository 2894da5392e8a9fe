/**
 * A bid's media type and the markup the exchange serves for it (DESIGN section 4 "Media
 * types"; OpenRTB 2.6 4.2.3 `mtype`). The type is the bid's `mtype` when present, else inferred
 * from the imp and the markup:
 * - VAST XML (`<VAST` after any byte-order mark, whitespace, XML declaration, comments,
 *   processing instructions and DOCTYPE) is video, or audio when the imp offers audio and not video;
 * - a JSON object with `native` or `assets` is native;
 * - anything else is banner.
 * A bid without markup has nothing to read: it takes the imp's type when the imp offers one
 * only, else banner (it is dropped with 7 later anyway).
 */
import { offers, mediaTypeOfMtype, type MediaType } from '../domain/media-type.js';
import type { Imp } from '../domain/openrtb.js';
import { readNativeMarkup, type NativeMarkup } from './native-markup.js';
import { readVast, type VastMarkup } from './vast.js';

/** What a first look at the markup found: VAST, a JSON value (parsed), or anything else. */
type Sniffed = { kind: 'vast' } | { kind: 'json'; value: unknown } | { kind: 'other' };

/** Skips a byte-order mark, whitespace, `<?...?>`, `<!--...-->` and `<!DOCTYPE ...>` from `i`. */
function skipProlog(adm: string, i: number): number {
  for (;;) {
    while (i < adm.length) {
      const c = adm.charCodeAt(i);
      if (c === 0xfeff || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
    if (adm.startsWith('<?', i)) {
      const end = adm.indexOf('?>', i + 2);
      if (end === -1) return adm.length;
      i = end + 2;
    } else if (adm.startsWith('<!--', i)) {
      const end = adm.indexOf('-->', i + 4);
      if (end === -1) return adm.length;
      i = end + 3;
    } else if (adm.startsWith('<!DOCTYPE', i)) {
      // Internal subset `[...]` first when there is one; good enough to find what follows.
      const bracket = adm.indexOf('[', i);
      const close = adm.indexOf('>', i);
      if (close === -1) return adm.length;
      if (bracket !== -1 && bracket < close) {
        const subsetEnd = adm.indexOf(']', bracket);
        const end = subsetEnd === -1 ? -1 : adm.indexOf('>', subsetEnd);
        if (end === -1) return adm.length;
        i = end + 1;
      } else i = close + 1;
    } else return i;
  }
}

const VAST_ROOT = /^<VAST[\s/>]/;

function sniff(adm: string): Sniffed {
  const i = skipProlog(adm, 0);
  if (VAST_ROOT.test(adm.slice(i, i + 6))) return { kind: 'vast' };
  if (adm.charCodeAt(i) === 0x7b /* { */) {
    try {
      return { kind: 'json', value: JSON.parse(adm) };
    } catch {
      return { kind: 'other' };
    }
  }
  return { kind: 'other' };
}

function looksNative(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ('native' in value || 'assets' in value);
}

/** The only media type `imp` offers, else undefined. */
function onlyType(imp: Imp): MediaType | undefined {
  const types = (['banner', 'video', 'audio', 'native'] as const).filter((t) => offers(imp, t));
  return types.length === 1 ? types[0] : undefined;
}

/** The type of VAST markup for `imp`: video, or audio when the imp offers audio and not video. */
function vastType(imp: Imp): 'video' | 'audio' {
  return offers(imp, 'audio') && !offers(imp, 'video') ? 'audio' : 'video';
}

/**
 * The media type inferred from `adm` for `imp` (rules in the module comment), for a bid without
 * `mtype`. Pure, never throws.
 */
export function inferMediaType(adm: unknown, imp: Imp): MediaType {
  return infer(adm, imp).type;
}

/** The inferred type, and the markup parsed as JSON when inference had to parse it. */
function infer(adm: unknown, imp: Imp): BidMediaType {
  if (typeof adm !== 'string' || adm.trim() === '') return { type: onlyType(imp) ?? 'banner' };
  const sniffed = sniff(adm);
  if (sniffed.kind === 'vast') return { type: vastType(imp) };
  if (sniffed.kind === 'json' && looksNative(sniffed.value)) return { type: 'native', parsed: { value: sniffed.value } };
  return { type: 'banner' };
}

/** A bid's media type; `parsed` holds its markup parsed as JSON when inference parsed it (reuse it). */
export interface BidMediaType {
  type: MediaType;
  parsed?: { value: unknown };
}

/**
 * The media type a bid claims (`mtype`) or is inferred to have (no `mtype`); `invalid` for an
 * `mtype` other than 1 to 4 (loss reason 3). Never throws.
 */
export function bidMediaType(bid: { mtype?: unknown; adm?: unknown }, imp: Imp): BidMediaType | 'invalid' {
  if (bid.mtype !== undefined && bid.mtype !== null) {
    const type = mediaTypeOfMtype(bid.mtype);
    return type === undefined ? 'invalid' : { type };
  }
  return infer(bid.adm, imp);
}

/** Servable markup by type: banner HTML as it is, a read VAST document, or a read native response. */
export type ServableMarkup = { type: 'banner' } | { type: 'video' | 'audio'; vast: VastMarkup } | { type: 'native'; native: NativeMarkup };

/**
 * Reads `adm` as markup of `type`, or answers undefined when it cannot be served as that type
 * (loss reason 3, DESIGN section 4): video and audio must be VAST 2.0 to 4.x without a DOCTYPE
 * (`readVast`); native a Native 1.2 response (`readNativeMarkup`). Banner markup is taken as it
 * is. Never throws.
 */
export function readMarkup(adm: string, judged: BidMediaType): ServableMarkup | undefined {
  const type = judged.type;
  if (type === 'banner') return { type };
  if (type === 'native') {
    const native = readNativeMarkup(adm, judged.parsed);
    return native === undefined ? undefined : { type, native };
  }
  const vast = readVast(adm);
  return typeof vast === 'string' ? undefined : { type, vast };
}


