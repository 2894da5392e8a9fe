/**
 * The demand partner service behind `/v1/demand-partners` (DESIGN sections 5 and 7), the CLI and
 * the seed config: validation, defaults and id minting over the storage port. No HTTP in here.
 *
 * Defaults (DESIGN section 7): adapter `openrtb25`, timeout_ms 1000, gzip false, qps_limit null
 * (no cap), currency USD, enabled true, openrtb_version '2.5', gvl_vendor_id null, media_types all
 * four (banner, video, audio, native).
 *
 * Choices where DESIGN is silent:
 * - Names need not be unique (the id is the identity); no 409 is ever raised.
 * - `endpoint` must be an absolute http: or https: URL with a host; private and loopback hosts
 *   are allowed (the SSRF guard covers webhooks only, DESIGN section 5).
 * - `currency` must be three upper-case letters; whether the exchange has a rate for it is not
 *   checked here (bids in a currency without a rate are dropped by the auction).
 * - `adapter` must be one of the adapters the exchange was built with (`adapterCodes`).
 * - `media_types` must be a non-empty array of distinct media type names; it is stored in the
 *   canonical order banner, video, audio, native whatever order the client used.
 * - Unknown input fields are ignored; a field given as `undefined` counts as absent.
 */
import type { Clock } from '../domain/clock.js';
import { CURRENCY_CODE } from '../domain/currency.js';
import { AdxError } from '../domain/errors.js';
import type { IdGenerator } from '../domain/ids.js';
import { MEDIA_TYPES, isMediaType, type MediaType } from '../domain/media-type.js';
import type { DemandPartnerRecord, Store } from '../storage/ports.js';
import { FieldErrors, checkBoolean, checkName, checkPositiveInteger, requireObject } from './field-checks.js';

/** Fields a client sets on a demand partner (snake_case, as in the admin API's JSON). */
export interface DemandPartnerInput {
  name: string;
  /** OpenRTB 2.5 endpoint, an http(s) URL. */
  endpoint: string;
  /** Adapter code (folder under `src/demand/adapters/`); default `openrtb25`. */
  adapter?: string;
  /** Most the partner may take, ms, positive integer; default 1000 (the tmax budget still applies). */
  timeout_ms?: number;
  /** Gzip outgoing requests; default false. */
  gzip?: boolean;
  /** Requests per second cap, positive integer, or null for none; default null. */
  qps_limit?: number | null;
  /** ISO-4217 code the partner bids in; default USD. */
  currency?: string;
  /** Whether the partner is called; default true. */
  enabled?: boolean;
  /** OpenRTB version the partner speaks, '2.5' or '2.6'; default '2.5' (DESIGN section 5). */
  openrtb_version?: '2.5' | '2.6';
  /** IAB TCF Global Vendor List id (integer 1..65535) or null; default null (DESIGN section 11). */
  gvl_vendor_id?: number | null;
  /** Media types the partner takes, a non-empty subset of banner, video, audio, native; default all four. */
  media_types?: string[];
}

/** A partial update: only the fields present change. `name` and `endpoint` cannot be cleared. */
export type DemandPartnerPatch = Partial<DemandPartnerInput>;

/** The defaults of DESIGN section 7, applied on create. */
export const DEMAND_PARTNER_DEFAULTS = {
  adapter: 'openrtb25',
  timeoutMs: 1000,
  gzip: false,
  qpsLimit: null,
  currency: 'USD',
  enabled: true,
  openrtbVersion: '2.5',
  gvlVendorId: null,
} as const satisfies Partial<DemandPartnerRecord>;

/** What the demand partner service needs. */
export interface DemandPartnerServiceDeps {
  store: Pick<Store, 'demandPartners'>;
  clock: Clock;
  ids: IdGenerator;
  /** Adapter codes the exchange knows (the demand registry's keys); `adapter` must be one of them. */
  adapterCodes: readonly string[];
  /** Called after every successful write, so callers can drop cached partners (the bid path). */
  onChange?: () => void;
}

/** Demand partner administration. Every method rejects with `AdxError`; storage errors pass through. */
export interface DemandPartnerService {
  /**
   * Creates a partner with the defaults for absent fields.
   * @throws AdxError `invalid_request` naming each invalid field.
   */
  create(input: DemandPartnerInput): Promise<DemandPartnerRecord>;
  /** @throws AdxError `not_found` when there is no partner `id`. */
  get(id: string): Promise<DemandPartnerRecord>;
  /** Every partner, enabled or not, in the store's order. */
  list(): Promise<DemandPartnerRecord[]>;
  /**
   * Applies `patch` (fields absent stay as they are) and bumps `updatedAtMs`; an empty patch
   * changes nothing and answers the record as it is.
   * @throws AdxError `invalid_request` naming each invalid field; `not_found` for an unknown id.
   */
  update(id: string, patch: DemandPartnerPatch): Promise<DemandPartnerRecord>;
  /** @throws AdxError `not_found` for an unknown id. */
  delete(id: string): Promise<void>;
}

/** Validated fields of a create or patch, in the record's camelCase. */
type PartnerFields = Partial<Omit<DemandPartnerRecord, 'id' | 'createdAtMs' | 'updatedAtMs'>>;

/** Largest TCF vendor id: the TC string encodes vendor ids in 16 bits (IAB TCF v2 consent string format). */
export const MAX_GVL_VENDOR_ID = 65535;

/** Longest endpoint URL accepted, in characters. */
const MAX_URL_LENGTH = 2048;

function checkEndpoint(value: unknown, errors: FieldErrors): string | undefined {
  const message = 'must be an absolute http or https URL';
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) {
    errors.add('endpoint', message);
    return undefined;
  }
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    errors.add('endpoint', message);
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    errors.add('endpoint', message);
    return undefined;
  }
  // Stored as given (trimmed), not re-serialized: the operator's URL is sent byte for byte.
  return trimmed;
}

/** `media_types`: a non-empty array of distinct media type names, answered in canonical order. */
function checkMediaTypes(value: unknown, errors: FieldErrors): MediaType[] | undefined {
  const message = `must be a non-empty array of distinct values among ${MEDIA_TYPES.join(', ')}`;
  if (!Array.isArray(value) || value.length === 0 || !value.every(isMediaType) || new Set(value).size !== value.length) {
    errors.add('media_types', message);
    return undefined;
  }
  return MEDIA_TYPES.filter((t) => value.includes(t));
}

/** Checks the fields present in `input`; `creating` requires name and endpoint. */
function checkPartnerFields(input: unknown, creating: boolean, adapterCodes: readonly string[]): PartnerFields {
  const body = requireObject(input, 'demand partner');
  const errors = new FieldErrors();
  const fields: PartnerFields = {};
  if (body.name !== undefined || creating) fields.name = checkName(body.name, 'name', errors);
  if (body.endpoint !== undefined || creating) fields.endpoint = checkEndpoint(body.endpoint, errors);
  if (body.adapter !== undefined) {
    if (typeof body.adapter !== 'string' || !adapterCodes.includes(body.adapter)) {
      errors.add('adapter', adapterCodes.length > 0 ? `must be one of ${adapterCodes.join(', ')}` : 'no adapter is available');
    } else fields.adapter = body.adapter;
  }
  if (body.timeout_ms !== undefined) fields.timeoutMs = checkPositiveInteger(body.timeout_ms, 'timeout_ms', errors);
  if (body.gzip !== undefined) fields.gzip = checkBoolean(body.gzip, 'gzip', errors);
  if (body.qps_limit !== undefined) {
    fields.qpsLimit = body.qps_limit === null ? null : checkPositiveInteger(body.qps_limit, 'qps_limit', errors);
  }
  if (body.currency !== undefined) {
    if (typeof body.currency !== 'string' || !CURRENCY_CODE.test(body.currency)) {
      errors.add('currency', 'must be three upper-case letters (ISO 4217)');
    } else fields.currency = body.currency;
  }
  if (body.enabled !== undefined) fields.enabled = checkBoolean(body.enabled, 'enabled', errors);
  if (body.openrtb_version !== undefined) {
    if (body.openrtb_version === '2.5' || body.openrtb_version === '2.6') fields.openrtbVersion = body.openrtb_version;
    else errors.add('openrtb_version', "must be '2.5' or '2.6'");
  }
  if (body.gvl_vendor_id !== undefined) {
    if (body.gvl_vendor_id === null) fields.gvlVendorId = null;
    else if (Number.isInteger(body.gvl_vendor_id) && (body.gvl_vendor_id as number) >= 1 && (body.gvl_vendor_id as number) <= MAX_GVL_VENDOR_ID) {
      fields.gvlVendorId = body.gvl_vendor_id as number;
    } else errors.add('gvl_vendor_id', `must be null or an integer from 1 to ${MAX_GVL_VENDOR_ID} (IAB TCF Global Vendor List id)`);
  }
  if (body.media_types !== undefined) fields.mediaTypes = checkMediaTypes(body.media_types, errors);
  errors.throwIfAny('demand partner');
  return fields;
}

function notFound(id: string): AdxError {
  return new AdxError('not_found', `no demand partner with id ${JSON.stringify(id)}`);
}

/** Builds the demand partner service. */
export function createDemandPartnerService(deps: DemandPartnerServiceDeps): DemandPartnerService {
  const { store, clock, ids, adapterCodes, onChange } = deps;
  const changed = (): void => onChange?.();

  const get = async (id: string): Promise<DemandPartnerRecord> => {
    const partner = await store.demandPartners.get(id);
    if (!partner) throw notFound(id);
    return partner;
  };

  return {
    async create(input) {
      const fields = checkPartnerFields(input, true, adapterCodes);
      const nowMs = clock.now();
      const partner: DemandPartnerRecord = {
        id: ids.next('dsp'),
        name: fields.name as string,
        endpoint: fields.endpoint as string,
        adapter: fields.adapter ?? DEMAND_PARTNER_DEFAULTS.adapter,
        timeoutMs: fields.timeoutMs ?? DEMAND_PARTNER_DEFAULTS.timeoutMs,
        gzip: fields.gzip ?? DEMAND_PARTNER_DEFAULTS.gzip,
        qpsLimit: fields.qpsLimit !== undefined ? fields.qpsLimit : DEMAND_PARTNER_DEFAULTS.qpsLimit,
        currency: fields.currency ?? DEMAND_PARTNER_DEFAULTS.currency,
        enabled: fields.enabled ?? DEMAND_PARTNER_DEFAULTS.enabled,
        openrtbVersion: fields.openrtbVersion ?? DEMAND_PARTNER_DEFAULTS.openrtbVersion,
        gvlVendorId: fields.gvlVendorId !== undefined ? fields.gvlVendorId : DEMAND_PARTNER_DEFAULTS.gvlVendorId,
        mediaTypes: fields.mediaTypes ?? [...MEDIA_TYPES],
        createdAtMs: nowMs,
        updatedAtMs: nowMs,
      };
      await store.demandPartners.create(partner);
      changed();
      return partner;
    },

    get,

    list() {
      return store.demandPartners.list();
    },

    async update(id, patch) {
      const fields = checkPartnerFields(patch, false, adapterCodes);
      if (Object.keys(fields).length === 0) return get(id);
      const updated = await store.demandPartners.update(id, { ...fields, updatedAtMs: clock.now() });
      if (!updated) throw notFound(id);
      changed();
      return updated;
    },

    async delete(id) {
      if (!(await store.demandPartners.delete(id))) throw notFound(id);
      changed();
    },
  };
}
