/**
 * The publisher service behind `/v1/publishers` (DESIGN section 7), the CLI and the seed config:
 * validation, id and key minting, and key rotation over the storage port. No HTTP in here.
 *
 * Choices where DESIGN is silent:
 * - Names need not be unique: the id is the identity, and two sites of one company may share a
 *   display name. No 409 is ever raised.
 * - `domain` (the publisher's main site) and every `domains[]` entry must be host names
 *   (`example.com`, no scheme, port or path); they are stored lower-cased, `domains` without
 *   duplicates. `browser_access: true` with no `domains` is accepted (every browser request then
 *   gets 403 until a domain is added).
 * - Unknown input fields are ignored; a field given as `undefined` counts as absent.
 * - `auction_type` is 1 (first price, the default) or 2 (second price plus); `reserve_price` is a
 *   CPM in USD with at most 6 decimals (whole micros), 0 by default (DESIGN section 4).
 * - `seller_type` (PUBLISHER by default, INTERMEDIARY or BOTH) and `is_confidential` (false by
 *   default) are the publisher's sellers.json entry (DESIGN section 11).
 */
import type { Clock } from '../domain/clock.js';
import { AdxError } from '../domain/errors.js';
import type { IdGenerator } from '../domain/ids.js';
import type { ApiKeyRecord, PublisherRecord, SellerType, Store } from '../storage/ports.js';
import { generateApiKey, hashApiKey, keyPrefix } from './api-keys.js';
import { FieldErrors, checkBoolean, checkCpmMicros, checkName, normalizeHostName, requireObject } from './field-checks.js';

/** Fields a client sets on a publisher (snake_case, as in the admin API's JSON). */
export interface PublisherInput {
  name: string;
  /** Main site host name, or null. */
  domain?: string | null;
  /** Host names allowed as `Origin` for browser supply (DESIGN section 2); default []. */
  domains?: string[];
  /** Whether browser (keyless) requests are accepted; default false. */
  browser_access?: boolean;
  /** Auction type when the request's `at` is not 1 or 2: 1 first price (default), 2 second price plus. */
  auction_type?: 1 | 2;
  /** Reserve price, CPM in USD (default 0): a floor under every imp of the publisher. */
  reserve_price?: number;
  /** sellers.json `seller_type`: PUBLISHER (default), INTERMEDIARY or BOTH (DESIGN section 11). */
  seller_type?: SellerType;
  /** sellers.json `is_confidential`: listed without name or domain; default false. */
  is_confidential?: boolean;
}

/** A partial update: only the fields present change. `name` cannot be cleared. */
export type PublisherPatch = Partial<PublisherInput>;

/** Options of `create` that the HTTP API does not expose. */
export interface PublisherCreateOptions {
  /**
   * Use this API key instead of generating one (seed configs that ship a known demo key).
   * Must be a non-empty string without whitespace.
   */
  apiKey?: string;
}

/** What the publisher service needs. */
export interface PublisherServiceDeps {
  store: Pick<Store, 'publishers'>;
  clock: Clock;
  ids: IdGenerator;
  /** Seconds an old key keeps authenticating after a rotation (config `security.keyRotationGraceSeconds`); >= 0. */
  keyRotationGraceSeconds: number;
  /** Called after every successful write, so callers can drop cached publishers (the bid path). */
  onChange?: () => void;
}

/** Publisher administration. Every method rejects with `AdxError`; storage errors pass through. */
export interface PublisherService {
  /**
   * Creates a publisher and its first API key.
   * @returns the stored record and the key in clear, which is never available again.
   * @throws AdxError `invalid_request` naming each invalid field.
   */
  create(input: PublisherInput, options?: PublisherCreateOptions): Promise<{ publisher: PublisherRecord; apiKey: string }>;
  /** @throws AdxError `not_found` when there is no publisher `id`. */
  get(id: string): Promise<PublisherRecord>;
  /** Every publisher, in the store's order. */
  list(): Promise<PublisherRecord[]>;
  /**
   * Applies `patch` (fields absent stay as they are) and bumps `updatedAtMs`; an empty patch
   * changes nothing and answers the record as it is.
   * @throws AdxError `invalid_request` naming each invalid field; `not_found` for an unknown id.
   */
  update(id: string, patch: PublisherPatch): Promise<PublisherRecord>;
  /** Deletes the publisher and all its keys. @throws AdxError `not_found` for an unknown id. */
  delete(id: string): Promise<void>;
  /**
   * Issues a new API key. Keys issued before it that had no expiry stay valid until
   * `previousKeysExpireAtMs` (now + the grace period, ms since the epoch), then are revoked.
   * @throws AdxError `not_found` for an unknown id.
   */
  rotateKey(id: string): Promise<{ apiKey: string; previousKeysExpireAtMs: number }>;
}

/** Validated, normalized fields of a create or patch. */
interface PublisherFields {
  name?: string;
  domain?: string | null;
  domains?: string[];
  browserAccess?: boolean;
  auctionType?: 1 | 2;
  reservePriceMicros?: number;
  sellerType?: SellerType;
  isConfidential?: boolean;
}

/** Checks the fields present in `input`; `requireName` for creation. */
function checkPublisherFields(input: unknown, requireName: boolean, what: string): PublisherFields {
  const body = requireObject(input, what);
  const errors = new FieldErrors();
  const fields: PublisherFields = {};
  if (body.name !== undefined || requireName) fields.name = checkName(body.name, 'name', errors);
  if (body.domain !== undefined) {
    if (body.domain === null) fields.domain = null;
    else {
      const host = normalizeHostName(body.domain);
      if (host === undefined) errors.add('domain', 'must be a host name such as example.com (no scheme, port or path) or null');
      else fields.domain = host;
    }
  }
  if (body.domains !== undefined) {
    if (!Array.isArray(body.domains)) errors.add('domains', 'must be an array of host names');
    else {
      const hosts = new Set<string>();
      body.domains.forEach((entry: unknown, i: number) => {
        const host = normalizeHostName(entry);
        if (host === undefined) errors.add(`domains[${i}]`, 'must be a host name such as example.com (no scheme, port or path)');
        else hosts.add(host);
      });
      fields.domains = [...hosts];
    }
  }
  if (body.browser_access !== undefined) fields.browserAccess = checkBoolean(body.browser_access, 'browser_access', errors);
  if (body.auction_type !== undefined) {
    if (body.auction_type === 1 || body.auction_type === 2) fields.auctionType = body.auction_type;
    else errors.add('auction_type', 'must be 1 (first price) or 2 (second price plus)');
  }
  if (body.reserve_price !== undefined) fields.reservePriceMicros = checkCpmMicros(body.reserve_price, 'reserve_price', errors);
  if (body.seller_type !== undefined) {
    if (body.seller_type === 'PUBLISHER' || body.seller_type === 'INTERMEDIARY' || body.seller_type === 'BOTH') fields.sellerType = body.seller_type;
    else errors.add('seller_type', 'must be PUBLISHER, INTERMEDIARY or BOTH (IAB sellers.json)');
  }
  if (body.is_confidential !== undefined) fields.isConfidential = checkBoolean(body.is_confidential, 'is_confidential', errors);
  errors.throwIfAny(what);
  return fields;
}

function notFound(id: string): AdxError {
  return new AdxError('not_found', `no publisher with id ${JSON.stringify(id)}`);
}

/**
 * Builds the publisher service.
 * @throws Error when `keyRotationGraceSeconds` is negative or not finite.
 */
export function createPublisherService(deps: PublisherServiceDeps): PublisherService {
  const { store, clock, ids, keyRotationGraceSeconds, onChange } = deps;
  if (!(Number.isFinite(keyRotationGraceSeconds) && keyRotationGraceSeconds >= 0)) {
    throw new Error('keyRotationGraceSeconds must be a finite number >= 0');
  }
  const changed = (): void => onChange?.();

  const newKeyRecord = (publisherId: string, apiKey: string, nowMs: number): ApiKeyRecord => ({
    id: ids.next('key'),
    publisherId,
    keyHash: hashApiKey(apiKey),
    prefix: keyPrefix(apiKey),
    createdAtMs: nowMs,
    expiresAtMs: null,
  });

  const get = async (id: string): Promise<PublisherRecord> => {
    const publisher = await store.publishers.get(id);
    if (!publisher) throw notFound(id);
    return publisher;
  };

  return {
    async create(input, options = {}) {
      const fields = checkPublisherFields(input, true, 'publisher');
      let apiKey = generateApiKey();
      if (options.apiKey !== undefined) {
        if (typeof options.apiKey !== 'string' || options.apiKey === '' || /\s/.test(options.apiKey)) {
          throw new AdxError('invalid_request', 'invalid publisher: api_key must be a non-empty string without whitespace', {
            errors: [{ field: 'api_key', message: 'must be a non-empty string without whitespace' }],
          });
        }
        apiKey = options.apiKey;
      }
      const nowMs = clock.now();
      const publisher: PublisherRecord = {
        id: ids.next('pub'),
        name: fields.name as string,
        domain: fields.domain ?? null,
        domains: fields.domains ?? [],
        browserAccess: fields.browserAccess ?? false,
        auctionType: fields.auctionType ?? 1,
        reservePriceMicros: fields.reservePriceMicros ?? 0,
        sellerType: fields.sellerType ?? 'PUBLISHER',
        isConfidential: fields.isConfidential ?? false,
        createdAtMs: nowMs,
        updatedAtMs: nowMs,
      };
      await store.publishers.create(publisher, newKeyRecord(publisher.id, apiKey, nowMs));
      changed();
      return { publisher, apiKey };
    },

    get,

    list() {
      return store.publishers.list();
    },

    async update(id, patch) {
      const fields = checkPublisherFields(patch, false, 'publisher');
      if (Object.keys(fields).length === 0) return get(id);
      const updated = await store.publishers.update(id, { ...fields, updatedAtMs: clock.now() });
      if (!updated) throw notFound(id);
      changed();
      return updated;
    },

    async delete(id) {
      if (!(await store.publishers.delete(id))) throw notFound(id);
      changed();
    },

    async rotateKey(id) {
      await get(id);
      const nowMs = clock.now();
      const apiKey = generateApiKey();
      const previousKeysExpireAtMs = nowMs + Math.round(keyRotationGraceSeconds * 1000);
      await store.publishers.rotateKey(newKeyRecord(id, apiKey, nowMs), previousKeysExpireAtMs);
      changed();
      return { apiKey, previousKeysExpireAtMs };
    },
  };
}
