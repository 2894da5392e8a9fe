/**
 * Where the fields OpenRTB 2.6 moved out of `ext` go in a partner's request (DESIGN section 5,
 * after Prebid Server's `openrtb_ext/convert_up.go` and `convert_down.go`):
 *
 * | field | 2.6 (top-level) | 2.5 (`ext`) |
 * |---|---|---|
 * | GDPR applies | `regs.gdpr` | `regs.ext.gdpr` |
 * | US Privacy | `regs.us_privacy` | `regs.ext.us_privacy` |
 * | TC string | `user.consent` | `user.ext.consent` |
 * | extended ids | `user.eids` | `user.ext.eids` |
 * | supply chain | `source.schain` | `source.ext.schain` |
 *
 * Either location is read on input; the top-level one wins when both are present (as
 * `convert_up.go`). Unlike `convert_down.go`, 2.6-only fields (`regs.gpp`, `regs.gpp_sid`,
 * `imp.rwdd`, `video.plcmt`, ...) are passed as they are to 2.5 partners (DESIGN section 5): the
 * 2.5 spec asks bidders to ignore fields they do not know.
 */
import type { BidRequest } from '../domain/openrtb.js';
import type { OpenRtbVersion } from '../storage/ports.js';

type Obj = Record<string, unknown>;

/** The moved fields, by parent object. */
export const MOVED_FIELDS: Readonly<Record<'regs' | 'user' | 'source', readonly string[]>> = {
  regs: ['gdpr', 'us_privacy'],
  user: ['consent', 'eids'],
  source: ['schain'],
};

function objectAt(value: unknown): Obj | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** `parent` with `keys` in the location of `version`; `parent` itself when none of them is present. */
function placeFields(parent: Obj, keys: readonly string[], version: OpenRtbVersion): Obj {
  const ext = objectAt(parent.ext);
  const present = keys.filter((k) => (parent[k] !== undefined && parent[k] !== null) || (ext?.[k] !== undefined && ext?.[k] !== null));
  if (present.length === 0) return parent;
  const out: Obj = { ...parent };
  const outExt: Obj = { ...ext };
  for (const key of present) {
    const top = parent[key];
    const value = top !== undefined && top !== null ? top : ext?.[key];
    delete out[key];
    delete outExt[key];
    if (version === '2.6') out[key] = value;
    else outExt[key] = value;
  }
  // An `ext` left empty by the move is dropped rather than sent as `{}`.
  if (Object.keys(outExt).length > 0) out.ext = outExt;
  else delete out.ext;
  return out;
}

/**
 * A copy of `request` with the moved fields (module table) where a `version` partner expects
 * them; objects without any of them are shared, not copied. Never mutates `request`.
 */
export function placeForVersion(request: BidRequest, version: OpenRtbVersion): BidRequest {
  let out: BidRequest | undefined;
  for (const [name, keys] of Object.entries(MOVED_FIELDS) as Array<[keyof typeof MOVED_FIELDS, readonly string[]]>) {
    const parent = objectAt(request[name]);
    if (!parent) continue;
    const placed = placeFields(parent, keys, version);
    if (placed === parent) continue;
    out ??= { ...request };
    out[name] = placed;
  }
  return out ?? request;
}
