/**
 * The request-context rules of bid request validation (DESIGN section 2, "Validation"; OpenRTB
 * 2.5 sections 3.2.2, 3.2.3 and 3.2.13 to 3.2.22): `site` / `app` (never both), `device`, `user`, `regs`,
 * `source` are objects when present; every `ext` of a 2.5 object in them is an object; the known
 * 2.5-era extensions have their types: `regs.ext.gdpr` (0 or 1), `regs.ext.us_privacy`,
 * `user.ext.consent` (IAB GDPR / CCPA extensions) and `source.ext.schain` (IAB SupplyChain).
 *
 * Anything else is kept and ignored, 2.6 fields included (`source.schain`, `regs.gpp`,
 * `user.eids` are not checked). Objects that are not part of the exchange's contract (e.g.
 * `device.geo`) are only descended into when they are objects; a wrong type there is ignored.
 */
import type { FieldError } from '../domain/errors.js';
import { EXT_MESSAGE, checkExt, fail, isBadExt, isObject, type JsonObject } from './checks.js';

/**
 * Validates the context objects of a request object and appends every problem to `errors`.
 * Field paths are literals (`site.publisher.ext`) except inside arrays (`user.data[2].ext`).
 */
export function validateContext(request: JsonObject, errors: FieldError[]): void {
  const { site, app, device, user, regs, source } = request;
  if (site !== undefined && app !== undefined) {
    fail(errors, 'app', 'must not be present together with site; a request is for a site or an app (OpenRTB 2.5 3.2.1)');
  }
  if (site !== undefined) {
    if (isObject(site)) validateDistributionChannel(site, 'site', errors);
    else fail(errors, 'site', 'must be an object (OpenRTB 2.5 Site)');
  }
  if (app !== undefined) {
    if (isObject(app)) validateDistributionChannel(app, 'app', errors);
    else fail(errors, 'app', 'must be an object (OpenRTB 2.5 App)');
  }
  if (device !== undefined) {
    if (isObject(device)) validateDevice(device, errors);
    else fail(errors, 'device', 'must be an object (OpenRTB 2.5 Device)');
  }
  if (user !== undefined) {
    if (isObject(user)) validateUser(user, errors);
    else fail(errors, 'user', 'must be an object (OpenRTB 2.5 User)');
  }
  if (regs !== undefined) {
    if (isObject(regs)) validateRegs(regs, errors);
    else fail(errors, 'regs', 'must be an object (OpenRTB 2.5 Regs)');
  }
  if (source !== undefined) {
    if (isObject(source)) validateSource(source, errors);
    else fail(errors, 'source', 'must be an object (OpenRTB 2.5 Source)');
  }
}

/** Site (3.2.13) or App (3.2.14): `ext`, and the ext of publisher, content and its producer/data. */
function validateDistributionChannel(channel: JsonObject, name: 'site' | 'app', errors: FieldError[]): void {
  if (isBadExt(channel.ext)) fail(errors, `${name}.ext`, EXT_MESSAGE);
  const publisher = channel.publisher;
  if (isObject(publisher) && isBadExt(publisher.ext)) fail(errors, `${name}.publisher.ext`, EXT_MESSAGE);
  const content = channel.content;
  if (isObject(content)) {
    if (isBadExt(content.ext)) fail(errors, `${name}.content.ext`, EXT_MESSAGE);
    const producer = content.producer;
    if (isObject(producer) && isBadExt(producer.ext)) fail(errors, `${name}.content.producer.ext`, EXT_MESSAGE);
    if (content.data !== undefined) validateData(content.data, name === 'site' ? 'site.content.data' : 'app.content.data', errors);
  }
}

/** Device (3.2.18) and its Geo (3.2.19): only their `ext` are checked. */
function validateDevice(device: JsonObject, errors: FieldError[]): void {
  checkExt(errors, device.ext, 'device.ext');
  const geo = device.geo;
  if (isObject(geo)) checkExt(errors, geo.ext, 'device.geo.ext');
}

/** User (3.2.20): `ext` is an object and `ext.consent` (IAB GDPR extension) a string; geo and data ext. */
function validateUser(user: JsonObject, errors: FieldError[]): void {
  const ext = checkExt(errors, user.ext, 'user.ext');
  if (ext !== undefined && ext.consent !== undefined && typeof ext.consent !== 'string') {
    fail(errors, 'user.ext.consent', 'must be a string (the IAB TCF consent string)');
  }
  const geo = user.geo;
  if (isObject(geo)) checkExt(errors, geo.ext, 'user.geo.ext');
  if (user.data !== undefined) validateData(user.data, 'user.data', errors);
}

/** Data (3.2.21) entries and their Segment (3.2.22) entries: only their `ext` are checked. */
function validateData(data: unknown, field: string, errors: FieldError[]): void {
  if (!Array.isArray(data)) return;
  for (let k = 0; k < data.length; k++) {
    const entry: unknown = data[k];
    if (!isObject(entry)) continue;
    if (isBadExt(entry.ext)) fail(errors, `${field}[${k}].ext`, EXT_MESSAGE);
    const segments = entry.segment;
    if (!Array.isArray(segments)) continue;
    for (let m = 0; m < segments.length; m++) {
      const segment: unknown = segments[m];
      if (isObject(segment) && isBadExt(segment.ext)) fail(errors, `${field}[${k}].segment[${m}].ext`, EXT_MESSAGE);
    }
  }
}

/**
 * Regs (3.2.3): `ext` is an object; `ext.gdpr` is the integer 0 or 1 and `ext.us_privacy` a
 * string (the IAB GDPR and CCPA extensions for OpenRTB 2.5).
 */
function validateRegs(regs: JsonObject, errors: FieldError[]): void {
  const ext = checkExt(errors, regs.ext, 'regs.ext');
  if (ext === undefined) return;
  const gdpr = ext.gdpr;
  if (gdpr !== undefined && gdpr !== 0 && gdpr !== 1) fail(errors, 'regs.ext.gdpr', 'must be the integer 0 or 1');
  if (ext.us_privacy !== undefined && typeof ext.us_privacy !== 'string') {
    fail(errors, 'regs.ext.us_privacy', 'must be a string (the IAB US Privacy string)');
  }
}

/**
 * Source (3.2.2): `ext` is an object; `ext.schain` (IAB SupplyChain object, the 2.5 location)
 * is an object with an integer `complete`, a string `ver` and an array `nodes` of objects; its
 * own `ext` and each node's `ext` are objects when present. The exchange appends its own node to it when it calls partners (DESIGN section 5).
 */
function validateSource(source: JsonObject, errors: FieldError[]): void {
  const ext = checkExt(errors, source.ext, 'source.ext');
  if (ext === undefined || ext.schain === undefined) return;
  const schain = ext.schain;
  if (!isObject(schain)) {
    fail(errors, 'source.ext.schain', 'must be an object (IAB SupplyChain)');
    return;
  }
  if (!Number.isInteger(schain.complete)) fail(errors, 'source.ext.schain.complete', 'must be an integer (1 = complete, 0 = not)');
  if (typeof schain.ver !== 'string') fail(errors, 'source.ext.schain.ver', 'must be a string');
  if (isBadExt(schain.ext)) fail(errors, 'source.ext.schain.ext', EXT_MESSAGE);
  const nodes = schain.nodes;
  if (!Array.isArray(nodes)) {
    fail(errors, 'source.ext.schain.nodes', 'must be an array of SupplyChainNode objects');
    return;
  }
  for (let k = 0; k < nodes.length; k++) {
    const node: unknown = nodes[k];
    if (!isObject(node)) fail(errors, `source.ext.schain.nodes[${k}]`, 'must be an object (IAB SupplyChainNode)');
    else if (isBadExt(node.ext)) fail(errors, `source.ext.schain.nodes[${k}].ext`, EXT_MESSAGE);
  }
}
