/**
 * Native markup (IAB Tech Lab OpenRTB Native Ads API 1.2): reading a partner's native `adm`
 * and adding the exchange's impression tracker to it (DESIGN section 4 "Media types").
 *
 * Native 1.2 section 5.1: the response is a JSON object, sent by some bidders inside an outer
 * `{"native": {...}}` (the 1.0/1.1 form) and by others bare; both are read, and the publisher
 * always gets the bare 1.2 form (what Prebid.js and 1.2 renderers read: `assets` at the top;
 * Prebid.js refuses a wrapped response). Section 5.8 `eventtrackers` (event 1 = impression, method 1 = image
 * pixel) is where 1.2 puts impression trackers; the legacy `imptrackers` list (5.1) gets the URL
 * too when the response uses it, so a renderer reading either fires ours.
 */

/** A native response the exchange can serve, parsed once at screening. */
export interface NativeMarkup {
  /** True when the partner wrapped the response in `{"native": {...}}`. */
  wrapped: boolean;
  /** The response object (inside the wrapper when there is one). */
  response: Record<string, unknown>;
  /** The outer object as parsed (the wrapper, or `response` itself). */
  outer: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `adm` as a Native 1.2 response, or answers undefined when it is not one (loss reason 3):
 * not JSON, not an object, an outer `native` that is not an object, neither `assets` (an array)
 * nor `assetsurl`/`dcourl` (1.2 section 5.1: one of them is required), or `link`,
 * `eventtrackers` or `imptrackers` of the wrong type. `parsed`, when given, is `adm` already
 * parsed (by type inference), so it is not parsed twice. Never throws.
 */
export function readNativeMarkup(adm: string, parsed?: { value: unknown }): NativeMarkup | undefined {
  let outer: unknown;
  if (parsed !== undefined) outer = parsed.value;
  else {
    try {
      outer = JSON.parse(adm);
    } catch {
      return undefined;
    }
  }
  if (!isObject(outer)) return undefined;
  const wrapped = outer.native !== undefined;
  const response = wrapped ? outer.native : outer;
  if (!isObject(response)) return undefined;
  const hasAssets = Array.isArray(response.assets) || typeof response.assetsurl === 'string' || typeof response.dcourl === 'string';
  if (!hasAssets) return undefined;
  if (response.link !== undefined && !isObject(response.link)) return undefined;
  if (response.eventtrackers !== undefined && !Array.isArray(response.eventtrackers)) return undefined;
  if (response.imptrackers !== undefined && !Array.isArray(response.imptrackers)) return undefined;
  return { wrapped, response, outer };
}

/**
 * The native response as JSON with the exchange's impression tracker added: `{event: 1,
 * method: 1, url}` appended to `eventtrackers` (created when absent), and `url` appended to
 * `imptrackers` when the response has that list. The partner's own trackers and every other
 * field of the response are kept; a `native` wrapper is removed (Native 1.2 form). Pure:
 * `native` is not mutated.
 */
export function addNativeImpression(native: NativeMarkup, impressionUrl: string): string {
  const response: Record<string, unknown> = { ...native.response };
  const eventtrackers = Array.isArray(native.response.eventtrackers) ? native.response.eventtrackers : [];
  response.eventtrackers = [...eventtrackers, { event: 1, method: 1, url: impressionUrl }];
  if (Array.isArray(native.response.imptrackers)) response.imptrackers = [...native.response.imptrackers, impressionUrl];
  return JSON.stringify(response);
}
