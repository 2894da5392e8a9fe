/**
 * JSON schemas (TypeBox) of the admin API's publishers and demand partners (DESIGN section 7).
 * Fastify validates bodies and params with them and serializes responses with them, and
 * @fastify/swagger turns them into `/v1/openapi.json`.
 *
 * Bodies are checked for types and simple ranges only; unknown properties are allowed and
 * ignored (never a 400). Rules that need context (adapter codes, http(s) endpoints, host names)
 * live in the services (src/admin/), which also serve the CLI and the seed config.
 * JSON is snake_case; times are ISO 8601 UTC strings ending in `Z`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * `T` or JSON null, written as `nullable: true` (OpenAPI 3.0, understood by ajv and
 * fast-json-stringify) rather than `anyOf`, so a wrong type gives one error naming the field
 * instead of one per branch.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });

/** An ISO 8601 UTC timestamp (`2026-01-01T00:00:00.000Z`). */
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

/** `:id` path parameter. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'Resource id' }) });
/** Static type of {@link IdParams}. */
export type IdParams = Static<typeof IdParams>;

/** RFC 9457 problem body (DESIGN section 8), for documentation of error answers. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { description: 'RFC 9457 problem details (application/problem+json)' },
);

const publisherFields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Display name; need not be unique' }),
  domain: Nullable(Type.String({ description: 'Main site host name, e.g. example.com' })),
  domains: Type.Array(Type.String(), {
    description: 'Host names (and their subdomains) allowed as Origin for browser supply',
  }),
  browser_access: Type.Boolean({ description: 'Accept keyless browser (Prebid.js) requests; default false' }),
  auction_type: Type.Union([Type.Literal(1), Type.Literal(2)], {
    description: "Auction type when the request's `at` is not 1 or 2: 1 first price (default), 2 second price plus",
  }),
  reserve_price: Type.Number({
    minimum: 0,
    description: 'Reserve price, CPM in USD (default 0): the effective floor of every imp is at least this',
  }),
  // Issue 12 (sellers.json): the publisher's entry in the exchange's sellers.json.
  seller_type: Type.Union([Type.Literal('PUBLISHER'), Type.Literal('INTERMEDIARY'), Type.Literal('BOTH')], {
    description: 'sellers.json seller_type (default PUBLISHER)',
  }),
  is_confidential: Type.Boolean({ description: 'sellers.json is_confidential: listed without name or domain (default false)' }),
};

/** `POST /v1/publishers` body. */
export const PublisherCreateBody = Type.Object(
  {
    name: publisherFields.name,
    domain: Type.Optional(publisherFields.domain),
    domains: Type.Optional(publisherFields.domains),
    browser_access: Type.Optional(publisherFields.browser_access),
    auction_type: Type.Optional(publisherFields.auction_type),
    reserve_price: Type.Optional(publisherFields.reserve_price),
    seller_type: Type.Optional(publisherFields.seller_type),
    is_confidential: Type.Optional(publisherFields.is_confidential),
  },
  { additionalProperties: true },
);
/** Static type of {@link PublisherCreateBody}. */
export type PublisherCreateBody = Static<typeof PublisherCreateBody>;

/** `PATCH /v1/publishers/{id}` body: any subset of the create fields. */
export const PublisherPatchBody = Type.Partial(PublisherCreateBody, { additionalProperties: true });
/** Static type of {@link PublisherPatchBody}. */
export type PublisherPatchBody = Static<typeof PublisherPatchBody>;

const publisherProperties = {
  id: Type.String({ description: 'Exchange-generated id (pub_...)' }),
  ...publisherFields,
  created_at: Timestamp('Creation time'),
  updated_at: Timestamp('Last change'),
};

/** A publisher as the admin API answers it (never with a key). */
export const Publisher = Type.Object(publisherProperties);
/** Static type of {@link Publisher}. */
export type Publisher = Static<typeof Publisher>;

/** `POST /v1/publishers` answer: the publisher plus its API key, shown this once. */
export const PublisherCreated = Type.Object({
  ...publisherProperties,
  api_key: Type.String({ description: 'Bearer key for the bid endpoint; shown only in this answer' }),
});
/** Static type of {@link PublisherCreated}. */
export type PublisherCreated = Static<typeof PublisherCreated>;

/** `POST /v1/publishers/{id}/keys` answer. */
export const PublisherKeyRotated = Type.Object({
  api_key: Type.String({ description: 'The new key; shown only in this answer' }),
  previous_keys_expire_at: Timestamp('When the keys issued before this one stop authenticating'),
});
/** Static type of {@link PublisherKeyRotated}. */
export type PublisherKeyRotated = Static<typeof PublisherKeyRotated>;

/** `GET /v1/publishers` answer. */
export const PublisherList = Type.Object({ data: Type.Array(Publisher) });

const demandPartnerFields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Display name; need not be unique' }),
  endpoint: Type.String({ minLength: 1, maxLength: 2048, description: 'OpenRTB 2.5 endpoint, an http or https URL' }),
  adapter: Type.String({ minLength: 1, description: 'Adapter code; default openrtb25' }),
  timeout_ms: Type.Integer({ minimum: 1, description: 'Most the partner may take, ms; default 1000 (the tmax budget still applies)' }),
  gzip: Type.Boolean({ description: 'Gzip the requests sent to the partner; default false' }),
  qps_limit: Nullable(Type.Integer({ minimum: 1, description: 'Requests per second cap; null (default) = none' })),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency the partner bids in; default USD' }),
  enabled: Type.Boolean({ description: 'Whether the partner is called; default true' }),
  // Issue 12 (privacy): the partner's OpenRTB version and IAB TCF vendor id.
  openrtb_version: Type.Union([Type.Literal('2.5'), Type.Literal('2.6')], {
    description: "OpenRTB version the partner speaks: '2.5' (default) puts regs.gdpr, regs.us_privacy, user.consent, user.eids and source.schain in ext; '2.6' top-level, with x-openrtb-version 2.6",
  }),
  gvl_vendor_id: Nullable(
    Type.Integer({ minimum: 1, maximum: 65535, description: 'IAB TCF Global Vendor List id; null (default) = none: not called where GDPR applies' }),
  ),
  media_types: Type.Array(Type.Union([Type.Literal('banner'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('native')]), {
    minItems: 1,
    uniqueItems: true,
    description: 'Media types the partner takes: it is offered only imps offering one of them, each imp reduced to those types (DESIGN section 5); default all four',
  }),
};

/** `POST /v1/demand-partners` body. */
export const DemandPartnerCreateBody = Type.Object(
  {
    name: demandPartnerFields.name,
    endpoint: demandPartnerFields.endpoint,
    adapter: Type.Optional(demandPartnerFields.adapter),
    timeout_ms: Type.Optional(demandPartnerFields.timeout_ms),
    gzip: Type.Optional(demandPartnerFields.gzip),
    qps_limit: Type.Optional(demandPartnerFields.qps_limit),
    currency: Type.Optional(demandPartnerFields.currency),
    enabled: Type.Optional(demandPartnerFields.enabled),
    openrtb_version: Type.Optional(demandPartnerFields.openrtb_version),
    gvl_vendor_id: Type.Optional(demandPartnerFields.gvl_vendor_id),
    media_types: Type.Optional(demandPartnerFields.media_types),
  },
  { additionalProperties: true },
);
/** Static type of {@link DemandPartnerCreateBody}. */
export type DemandPartnerCreateBody = Static<typeof DemandPartnerCreateBody>;

/** `PATCH /v1/demand-partners/{id}` body: any subset of the create fields. */
export const DemandPartnerPatchBody = Type.Partial(DemandPartnerCreateBody, { additionalProperties: true });
/** Static type of {@link DemandPartnerPatchBody}. */
export type DemandPartnerPatchBody = Static<typeof DemandPartnerPatchBody>;

/** A demand partner as the admin API answers it. */
export const DemandPartner = Type.Object({
  id: Type.String({ description: 'Exchange-generated id (dsp_...); the seat in bid responses' }),
  ...demandPartnerFields,
  created_at: Timestamp('Creation time'),
  updated_at: Timestamp('Last change'),
});
/** Static type of {@link DemandPartner}. */
export type DemandPartner = Static<typeof DemandPartner>;

/** `GET /v1/demand-partners` answer. */
export const DemandPartnerList = Type.Object({ data: Type.Array(DemandPartner) });

/** Error answers every admin route may give, for the OpenAPI document. */
export const adminErrorResponses = {
  400: { ...Problem, description: 'Invalid request: the fields named in errors[]' },
  401: { ...Problem, description: 'Missing or wrong admin key' },
  404: { ...Problem, description: 'No such resource' },
};

/** 204 answer of deletes. */
export const NoContent = Type.Null({ description: 'Deleted' });
