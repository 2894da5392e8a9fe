/**
 * The markup the publisher gets (DESIGN sections 2 and 4): the winning partner's `adm` with the
 * OpenRTB 2.5 macros substituted (section 4.4) and the exchange's impression notice URL added as
 * its media type requires:
 * - banner: a hidden 1x1 `<img>` pixel appended to the HTML;
 * - video and audio: an `<Impression>` in every `<InLine>` and `<Wrapper>` ad of the VAST;
 * - native: an impression event tracker `{event: 1, method: 1, url}` (and `imptrackers` where used).
 * Whichever fires first of that URL and the billing notice counts and bills the impression, the
 * same for every type (`notices/`).
 */
import type { Bid } from '../domain/openrtb.js';
import { substituteMacros, type MacroValues } from '../notices/macros.js';
import type { ServableMarkup } from './creative.js';
import { addNativeImpression } from './native-markup.js';
import { addVastImpression } from './vast.js';

const PIXEL_STYLE = 'position:absolute;left:-9999px;width:1px;height:1px;border:0';

/** Escapes a URL for an HTML attribute value. */
function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * `adm` (as the partner sent it, read as `markup` at screening) ready to serve: trackers added,
 * then macros substituted with `macros` (the exchange's URL carries no macro, and substituted
 * values are URL-encoded, so they cannot break the XML or JSON around them). Pure.
 */
export function buildServedMarkup(adm: string, markup: ServableMarkup, impressionUrl: string, macros: MacroValues): string {
  switch (markup.type) {
    case 'banner': {
      const pixel = `<img src="${attr(impressionUrl)}" width="1" height="1" alt="" style="${PIXEL_STYLE}">`;
      return substituteMacros(adm, macros) + pixel;
    }
    case 'video':
    case 'audio':
      // Offsets from the read index `adm` as sent: insert first, substitute after.
      return substituteMacros(addVastImpression(adm, markup.vast, impressionUrl), macros);
    case 'native':
      return substituteMacros(addNativeImpression(markup.native, impressionUrl), macros);
  }
}

/** The partner's own `w` x `h` for a video, audio or native bid, when both are positive integers (not checked against the imp). */
export function creativeSizeOf(bid: Bid): { w: number; h: number } | undefined {
  const { w, h } = bid;
  return typeof w === 'number' && typeof h === 'number' && Number.isInteger(w) && Number.isInteger(h) && w > 0 && h > 0 ? { w, h } : undefined;
}
