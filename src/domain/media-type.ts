/**
 * Media types (DESIGN section 4 "Media types"; OpenRTB 2.5 section 3.2.4 Imp, OpenRTB 2.6 section
 * 4.2.3 `bid.mtype`, Prebid's `bid.ext.prebid.type`).
 *
 * - An imp offers a media type by carrying its object (`banner`, `video`, `audio`, `native`);
 *   one imp may offer several (a multi-format imp), and each bid fills it with one of them.
 * - `mtype` (OpenRTB 2.6, list "Creative Markup Types"): 1 banner, 2 video, 3 audio, 4 native.
 *   The exchange puts it on every bid it returns, with `ext.prebid.type` (the name) for Prebid.js.
 */

/** The four OpenRTB media types, by the name of their imp object. */
export type MediaType = 'banner' | 'video' | 'audio' | 'native';

/** Every media type, in `mtype` order. A demand partner's `media_types` defaults to all of them. */
export const MEDIA_TYPES: readonly MediaType[] = Object.freeze(['banner', 'video', 'audio', 'native'] as const);

/** `mtype` of each media type (OpenRTB 2.6 list "Creative Markup Types"). */
export const MTYPE_OF: Readonly<Record<MediaType, 1 | 2 | 3 | 4>> = Object.freeze({ banner: 1, video: 2, audio: 3, native: 4 });

/** The media type of an `mtype` value, or undefined when it is not 1 to 4. */
export function mediaTypeOfMtype(mtype: unknown): MediaType | undefined {
  return mtype === 1 ? 'banner' : mtype === 2 ? 'video' : mtype === 3 ? 'audio' : mtype === 4 ? 'native' : undefined;
}

/** True when `value` names a media type. */
export function isMediaType(value: unknown): value is MediaType {
  return value === 'banner' || value === 'video' || value === 'audio' || value === 'native';
}

/**
 * The media types an imp offers: each of `banner`, `video`, `audio`, `native` that is an object
 * (validation rejects any other value, DESIGN section 2), in `MEDIA_TYPES` order.
 */
export function offeredMediaTypes(imp: { banner?: unknown; video?: unknown; audio?: unknown; native?: unknown }): MediaType[] {
  const out: MediaType[] = [];
  if (isMediaObject(imp.banner)) out.push('banner');
  if (isMediaObject(imp.video)) out.push('video');
  if (isMediaObject(imp.audio)) out.push('audio');
  if (isMediaObject(imp.native)) out.push('native');
  return out;
}

/** True when the imp offers `type` (its object is present). */
export function offers(imp: { banner?: unknown; video?: unknown; audio?: unknown; native?: unknown }, type: MediaType): boolean {
  return isMediaObject(imp[type]);
}

function isMediaObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
