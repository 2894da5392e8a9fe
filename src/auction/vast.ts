/**
 * VAST markup (IAB Tech Lab VAST 2.0, 3.0, 4.0-4.3): reading a partner's video or audio `adm`
 * and adding the exchange's impression tracker to it (DESIGN section 4 "Media types").
 *
 * Safety: the XML is read by saxes, a conforming non-validating parser that never fetches
 * anything and never expands entities declared in a DTD. On top of that a DOCTYPE (the only
 * place an ENTITY can be declared) stops the read at once and the bid is refused, so a
 * billion-laughs or external-entity (XXE) VAST costs one pass up to its DOCTYPE and nothing more.
 *
 * The markup is never re-serialized: the exchange's `<Impression>` is spliced into the partner's
 * text at offsets the parser reported, so every partner tracker, CDATA section, comment and
 * whitespace stays byte for byte.
 */
import { SaxesParser } from 'saxes';

/** A VAST document the exchange can serve: its version and where each ad takes our tracker. */
export interface VastMarkup {
  /** The root's `version` attribute (2.x, 3.x or 4.x). */
  version: string;
  /**
   * UTF-16 offsets into the markup, ascending, one per `<InLine>` and `<Wrapper>` ad: where the
   * exchange's `<Impression>` goes (after the ad's last `<Impression>`, else after its
   * `<AdSystem>`, else right after the ad's start tag; Impression precedes Creatives in every
   * VAST schema, and players read the trackers in any order).
   */
  insertAt: number[];
}

/** Why markup is not a servable VAST document (each drops the bid with loss reason 3). */
export type VastProblem = 'doctype' | 'malformed' | 'not_vast' | 'unsupported_version' | 'no_ad';

/** VAST 2.0 to 4.x: the versions the exchange serves. */
const SUPPORTED_VERSION = /^[234](\.\d+)*$/;

/** Thrown inside the parser's handlers to stop reading at once. */
class StopReading extends Error {
  constructor(readonly problem: VastProblem) {
    super(problem);
  }
}

/** The local part of a possibly prefixed element name (`vast:Impression` -> `Impression`). */
function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * Reads `adm` as VAST. Leading whitespace and a byte-order mark are allowed before the XML
 * declaration (partners send them; the offsets still index `adm` itself). Returns the document's
 * version and insertion points, or the problem:
 * - `doctype`: a DOCTYPE (with or without ENTITY declarations) anywhere before the root;
 * - `malformed`: not well-formed XML, including a reference to an entity not predefined by XML;
 * - `not_vast`: the root element is not `VAST`;
 * - `unsupported_version`: `version` missing or not 2.x, 3.x or 4.x;
 * - `no_ad`: no `<Ad>` with an `<InLine>` or `<Wrapper>` (an empty VAST is a no-bid, not an ad).
 * Never throws.
 */
export function readVast(adm: string): VastMarkup | VastProblem {
  let start = 0;
  while (start < adm.length) {
    const c = adm.charCodeAt(start);
    if (c === 0xfeff || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) start++;
    else break;
  }
  const parser = new SaxesParser({ position: true });
  let depth = 0;
  let version = '';
  const insertAt: number[] = [];
  // The InLine/Wrapper being read: its depth and where the tracker goes so far.
  let ad: { depth: number; afterImpression: number; afterAdSystem: number; afterStart: number } | undefined;
  parser.on('doctype', () => {
    throw new StopReading('doctype');
  });
  parser.on('opentag', (tag) => {
    depth++;
    const name = localName(tag.name);
    if (depth === 1) {
      if (name !== 'VAST') throw new StopReading('not_vast');
      const v = tag.attributes.version;
      version = typeof v === 'string' ? v.trim() : '';
      if (!SUPPORTED_VERSION.test(version)) throw new StopReading('unsupported_version');
    } else if (depth === 3 && (name === 'InLine' || name === 'Wrapper')) {
      ad = { depth, afterImpression: -1, afterAdSystem: -1, afterStart: start + parser.position };
    }
    // A self-closing tag gets its closetag event at once, with the position after `/>`.
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    if (ad !== undefined) {
      if (depth === ad.depth + 1) {
        if (name === 'Impression') ad.afterImpression = start + parser.position;
        else if (name === 'AdSystem') ad.afterAdSystem = start + parser.position;
      } else if (depth === ad.depth) {
        insertAt.push(ad.afterImpression >= 0 ? ad.afterImpression : ad.afterAdSystem >= 0 ? ad.afterAdSystem : ad.afterStart);
        ad = undefined;
      }
    }
    depth--;
  });
  parser.on('error', (err) => {
    throw new StopReading(err instanceof StopReading ? err.problem : 'malformed');
  });
  try {
    parser.write(start === 0 ? adm : adm.slice(start)).close();
  } catch (err) {
    return err instanceof StopReading ? err.problem : 'malformed';
  }
  if (version === '') return 'not_vast';
  if (insertAt.length === 0) return 'no_ad';
  return { version, insertAt };
}

/**
 * `adm` with `<Impression><![CDATA[impressionUrl]]></Impression>` inserted at every point of
 * `vast.insertAt` (from `readVast(adm)`). `impressionUrl` must not contain `]]>` (the exchange's
 * notice URLs are base64url tokens and never do). Pure; everything else is kept byte for byte.
 */
export function addVastImpression(adm: string, vast: VastMarkup, impressionUrl: string): string {
  const tracker = `<Impression><![CDATA[${impressionUrl}]]></Impression>`;
  let out = '';
  let from = 0;
  for (const at of vast.insertAt) {
    out += adm.slice(from, at) + tracker;
    from = at;
  }
  return out + adm.slice(from);
}
