/**
 * The generic OpenRTB 2.5 adapter (`adapter: "openrtb25"`): speaks plain OpenRTB 2.5 to any
 * partner endpoint (IAB OpenRTB API Specification 2.5, sections 3 and 4; DESIGN section 5).
 * Pure, per the adapter contract (contract.ts): no I/O, timers or logging.
 */
import type { Adapter, AdapterContext, AdapterError, ParsedBid, PartnerHttpRequest, PartnerHttpResponse } from '../../contract.js';
import type { Bid, BidRequest, Imp } from '../../../domain/openrtb.js';
import { offeredMediaTypes } from '../../../domain/media-type.js';
import { convertImpFloors } from '../../floors.js';
import { placeForVersion } from '../../openrtb-version.js';
import { appendSchainNode } from '../../schain.js';

/** Headers of every outgoing request (OpenRTB 2.5 section 2.4: the version header, 2.6 for a 2.6 partner). */
const REQUEST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'x-openrtb-version': '2.5',
});

/**
 * Builds one POST to `ctx.partner.endpoint` with:
 * - `id` a new id (`ctx.ids.next('req')`), `tmax` = `ctx.tmaxMs`, `cur` = [partner currency];
 * - the imps offering a media type (banner, video, audio, native: the dispatcher has already
 *   reduced them to the partner's `media_types`), floors (imp and deal) converted into the partner's currency
 *   with `bidfloorcur` set to it; an imp whose floor currency has no rate is left out;
 * - a native imp whose `native.request` came as an object (accepted at the edge, DESIGN section
 *   4) gets it as its JSON string, the type OpenRTB 2.5 section 3.2.9 gives it;
 * - `source.ext.schain` with the exchange's node `{asi, sid: publisher id, rid: original
 *   request id, hp: 1}` appended;
 * - every other field (site/app/device/user/regs, bcat, badv, ...) copied shallowly;
 * - for a partner whose `openrtbVersion` is 2.6, the fields 2.6 moved out of `ext` top-level and
 *   `x-openrtb-version: 2.6`; for 2.5, those fields in `ext` (`openrtb-version.ts`).
 * No imp left: no request and no error (not the request's fault). Never mutates `request`.
 */
function buildRequests(request: BidRequest, ctx: AdapterContext): { requests: PartnerHttpRequest[]; errors: AdapterError[] } {
  const currency = ctx.partner.currency;
  const imps: Imp[] = [];
  for (const imp of request.imp) {
    if (offeredMediaTypes(imp).length === 0) continue;
    const offered = convertImpFloors(imp, currency, ctx.rates);
    if (offered) imps.push(withNativeRequestString(offered));
  }
  if (imps.length === 0) return { requests: [], errors: [] };

  const version = ctx.partner.openrtbVersion === '2.6' ? '2.6' : '2.5';
  const offered: BidRequest = {
    ...request,
    id: ctx.ids.next('req'),
    imp: imps,
    tmax: ctx.tmaxMs,
    cur: [currency],
    source: appendSchainNode(request.source, { asi: ctx.exchangeDomain, sid: ctx.publisherId, rid: request.id, hp: 1 }),
  };
  const body = placeForVersion(offered, version);
  return { requests: [{ method: 'POST', uri: ctx.partner.endpoint, headers: { ...REQUEST_HEADERS, 'x-openrtb-version': version }, body }], errors: [] };
}

/** `imp` with an object `native.request` replaced by its JSON string (OpenRTB 2.5 3.2.9); other imps as they are. */
function withNativeRequestString(imp: Imp): Imp {
  const request = imp.native?.request;
  if (typeof request !== 'object' || request === null) return imp;
  return { ...imp, native: { ...imp.native, request: JSON.stringify(request) } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function badResponse(message: string): AdapterError {
  return { kind: 'bad_response', message };
}

/**
 * Parses an OpenRTB 2.5 BidResponse (section 4.2). 204, an empty body, `{}` and an absent or
 * empty `seatbid` are no bid without error; a non-2xx status is `http_status`; unparsable JSON,
 * a non-object body, a non-string `cur` or a non-array `seatbid` are `bad_response` with no
 * bids. A seatbid or bid that is not an object is skipped with a `bad_response` error while
 * the good ones are kept. `cur` defaults to USD, the seat to the partner id. Bids are returned
 * as sent (the auction validates them).
 */
function parseBids(_sent: PartnerHttpRequest, received: PartnerHttpResponse, ctx: AdapterContext): { bids: ParsedBid[]; errors: AdapterError[] } {
  const bids: ParsedBid[] = [];
  const errors: AdapterError[] = [];
  if (received.status === 204) return { bids, errors };
  if (received.status < 200 || received.status > 299) {
    errors.push({ kind: 'http_status', message: `partner answered HTTP ${received.status}` });
    return { bids, errors };
  }
  if (received.body.trim() === '') return { bids, errors };

  let parsed: unknown;
  try {
    parsed = JSON.parse(received.body);
  } catch {
    errors.push(badResponse('response body is not JSON'));
    return { bids, errors };
  }
  if (!isObject(parsed)) {
    errors.push(badResponse('response body is not a JSON object'));
    return { bids, errors };
  }
  const { seatbid, cur } = parsed;
  if (seatbid === undefined || seatbid === null) return { bids, errors };
  if (!Array.isArray(seatbid)) {
    errors.push(badResponse('seatbid is not an array'));
    return { bids, errors };
  }
  if (cur !== undefined && cur !== null && typeof cur !== 'string') {
    errors.push(badResponse('cur is not a string'));
    return { bids, errors };
  }
  const currency = typeof cur === 'string' && cur !== '' ? cur : 'USD';

  for (let s = 0; s < seatbid.length; s++) {
    const entry: unknown = seatbid[s];
    if (!isObject(entry)) {
      errors.push(badResponse(`seatbid[${s}] is not an object`));
      continue;
    }
    const seat = typeof entry.seat === 'string' && entry.seat !== '' ? entry.seat : typeof entry.seat === 'number' ? String(entry.seat) : ctx.partner.id;
    const list = entry.bid;
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      errors.push(badResponse(`seatbid[${s}].bid is not an array`));
      continue;
    }
    for (let b = 0; b < list.length; b++) {
      const bid: unknown = list[b];
      if (!isObject(bid)) {
        errors.push(badResponse(`seatbid[${s}].bid[${b}] is not an object`));
        continue;
      }
      bids.push({ bid: bid as Bid, seat, currency });
    }
  }
  return { bids, errors };
}

/** The generic OpenRTB 2.5 adapter (`code: 'openrtb25'`). */
export const openrtb25Adapter: Adapter = {
  code: 'openrtb25',
  buildRequests,
  parseBids,
};
