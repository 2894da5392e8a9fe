/**
 * What a demand partner is offered by media type (DESIGN section 5): the imps that offer at
 * least one type in the partner's `media_types`, each reduced to those types. Floors, deals and
 * every other imp field are kept as they are. Pure; applied by the dispatcher before the
 * partner's adapter builds its requests, so every adapter sees only what its partner takes.
 */
import type { BidRequest, Imp } from '../domain/openrtb.js';
import { MEDIA_TYPES, type MediaType } from '../domain/media-type.js';

/**
 * `request` reduced for a partner taking `mediaTypes`:
 * - an imp offering none of them is left out;
 * - an imp offering some of them keeps only those media objects (a banner+video imp offered to a
 *   video-only partner is sent as a video imp);
 * - nothing to take: null (the partner is not called).
 * When the partner takes every type the imp offers, the imp object is passed as it is, and when
 * it takes every type of every imp, `request` itself is returned (no copy on the common path).
 * Never mutates `request`.
 */
export function offerByMediaType(request: BidRequest, mediaTypes: readonly MediaType[]): BidRequest | null {
  if (mediaTypes.length === MEDIA_TYPES.length) return request;
  const takes = new Set<MediaType>(mediaTypes);
  let changed = false;
  const imps: Imp[] = [];
  for (const imp of request.imp) {
    let kept = 0;
    let dropped = 0;
    for (const type of MEDIA_TYPES) {
      if (!isPresent(imp[type])) continue;
      if (takes.has(type)) kept++;
      else dropped++;
    }
    if (kept === 0) {
      changed = true;
      continue;
    }
    if (dropped === 0) {
      imps.push(imp);
      continue;
    }
    changed = true;
    const reduced: Imp = { ...imp };
    for (const type of MEDIA_TYPES) if (!takes.has(type)) delete reduced[type];
    imps.push(reduced);
  }
  if (imps.length === 0) return null;
  return changed ? { ...request, imp: imps } : request;
}

function isPresent(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
