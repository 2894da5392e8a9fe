/**
 * The reductions a partner's copy of the request goes through (DESIGN section 11), as bit flags
 * and one pure function applying them. Copy on write: only the objects a reduction changes are
 * copied (`user`, `device`, their `geo` and `ext`); everything else is shared with the input,
 * which is never mutated.
 */
import type { BidRequest } from '../domain/openrtb.js';
import { maskIp, maskIpv6 } from './ip.js';

/** Reduction flags; a partner's reductions are their bitwise OR. */
export const Reduction = {
  /** Remove user and device ids (`SCRUBBED_USER_FIELDS`, `SCRUBBED_DEVICE_FIELDS`, `user.ext.eids`). */
  scrubIds: 1,
  /** IPv4 to /24 (last octet 0), IPv6 to /48. */
  maskIp: 2,
  /** `lat`/`lon` of `device.geo` and `user.geo` rounded to 2 decimals. */
  coarsenGeo: 4,
  /** COPPA: remove `user.yob`, `user.gender` and `lat`, `lon`, `metro`, `city`, `zip` of both geos. */
  childData: 8,
} as const;

/** User ids removed by `scrubIds` (OpenRTB 2.5 3.2.20 and 2.6 `eids`). */
export const SCRUBBED_USER_FIELDS = ['id', 'buyeruid', 'eids'] as const;
/** Device ids removed by `scrubIds` (OpenRTB 2.5 3.2.18). */
export const SCRUBBED_DEVICE_FIELDS = ['ifa', 'didsha1', 'didmd5', 'dpidsha1', 'dpidmd5', 'macsha1', 'macmd5'] as const;
/** Geo fields removed under COPPA (OpenRTB 2.5 3.2.19). */
export const CHILD_GEO_FIELDS = ['lat', 'lon', 'metro', 'city', 'zip'] as const;
/** User fields removed under COPPA. */
export const CHILD_USER_FIELDS = ['yob', 'gender'] as const;

type Obj = Record<string, unknown>;

function objectAt(value: unknown): Obj | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** Rounds a coordinate to 2 decimals (about 1.1 km); a non-number is dropped (undefined). */
function coarse(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 100) / 100 : undefined;
}

function reduceGeo(geo: Obj, flags: number): Obj {
  const out: Obj = { ...geo };
  if (flags & Reduction.childData) {
    for (const key of CHILD_GEO_FIELDS) delete out[key];
  } else if (flags & Reduction.coarsenGeo) {
    for (const key of ['lat', 'lon'] as const) {
      if (out[key] === undefined) continue;
      const rounded = coarse(out[key]);
      if (rounded === undefined) delete out[key];
      else out[key] = rounded;
    }
  }
  return out;
}

const GEO_FLAGS = Reduction.childData | Reduction.coarsenGeo;

function reduceUser(user: Obj, flags: number): Obj {
  const out: Obj = { ...user };
  if (flags & Reduction.scrubIds) {
    for (const key of SCRUBBED_USER_FIELDS) delete out[key];
    const ext = objectAt(out.ext);
    if (ext && 'eids' in ext) {
      const { eids: _eids, ...rest } = ext;
      out.ext = rest;
    }
  }
  if (flags & Reduction.childData) for (const key of CHILD_USER_FIELDS) delete out[key];
  const geo = objectAt(out.geo);
  if (geo && flags & GEO_FLAGS) out.geo = reduceGeo(geo, flags);
  return out;
}

function reduceDevice(device: Obj, flags: number): Obj {
  const out: Obj = { ...device };
  if (flags & Reduction.scrubIds) for (const key of SCRUBBED_DEVICE_FIELDS) delete out[key];
  if (flags & Reduction.maskIp) {
    // An address that is not one (junk) is dropped rather than passed on unmasked.
    if (out.ip !== undefined) {
      const masked = typeof out.ip === 'string' ? maskIp(out.ip) : undefined;
      if (masked === undefined) delete out.ip;
      else out.ip = masked;
    }
    if (out.ipv6 !== undefined) {
      const masked = typeof out.ipv6 === 'string' ? maskIpv6(out.ipv6) : undefined;
      if (masked === undefined) delete out.ipv6;
      else out.ipv6 = masked;
    }
  }
  const geo = objectAt(out.geo);
  if (geo && flags & GEO_FLAGS) out.geo = reduceGeo(geo, flags);
  return out;
}

/**
 * `request` reduced by `flags` (a bitwise OR of `Reduction`): a new request object sharing every
 * part the flags leave alone; `request` itself when `flags` is 0. The consent strings and every
 * other signal are kept unchanged. Never mutates `request`.
 */
export function reduceRequest(request: BidRequest, flags: number): BidRequest {
  if (flags === 0) return request;
  const out: BidRequest = { ...request };
  const user = objectAt(request.user);
  if (user) out.user = reduceUser(user, flags);
  const device = objectAt(request.device);
  if (device) out.device = reduceDevice(device, flags);
  return out;
}
