/**
 * Demand partner queries (`DemandPartnerStore`), portable SQL over `Kysely<Database>`.
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { DemandPartnerRecord, DemandPartnerStore } from '../ports.js';
import { MEDIA_TYPES, isMediaType, type MediaType } from '../../domain/media-type.js';
import { fromDbBool, fromDbInt, fromDbIntOrNull, toDbBool, type Database, type DemandPartnersTable } from '../schema.js';

/**
 * `media_types` JSON text to a list: the known names, once each. Text that is not such a list
 * (or names none) reads as every type, the default, so a damaged row never stops a partner.
 */
function parseMediaTypes(text: string): MediaType[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) {
      const types = MEDIA_TYPES.filter((t) => value.includes(t));
      if (types.length > 0 && value.every(isMediaType)) return types;
    }
  } catch {
    // fall through to the default
  }
  return [...MEDIA_TYPES];
}

/** A `demand_partners` row as a record. */
function toPartner(row: Selectable<DemandPartnersTable>): DemandPartnerRecord {
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    adapter: row.adapter,
    timeoutMs: fromDbInt(row.timeout_ms),
    gzip: fromDbBool(row.gzip),
    qpsLimit: fromDbIntOrNull(row.qps_limit),
    currency: row.currency,
    enabled: fromDbBool(row.enabled),
    openrtbVersion: row.openrtb_version === '2.6' ? '2.6' : '2.5',
    gvlVendorId: fromDbIntOrNull(row.gvl_vendor_id),
    mediaTypes: parseMediaTypes(row.media_types),
    createdAtMs: fromDbInt(row.created_at_ms),
    updatedAtMs: fromDbInt(row.updated_at_ms),
  };
}

/** The defined fields of a patch as column values (`qpsLimit: null` clears the cap). */
function toUpdate(patch: Partial<Omit<DemandPartnerRecord, 'id' | 'createdAtMs'>>): Updateable<DemandPartnersTable> {
  const set: Updateable<DemandPartnersTable> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.endpoint !== undefined) set.endpoint = patch.endpoint;
  if (patch.adapter !== undefined) set.adapter = patch.adapter;
  if (patch.timeoutMs !== undefined) set.timeout_ms = patch.timeoutMs;
  if (patch.gzip !== undefined) set.gzip = toDbBool(patch.gzip);
  if (patch.qpsLimit !== undefined) set.qps_limit = patch.qpsLimit;
  if (patch.currency !== undefined) set.currency = patch.currency;
  if (patch.enabled !== undefined) set.enabled = toDbBool(patch.enabled);
  if (patch.openrtbVersion !== undefined) set.openrtb_version = patch.openrtbVersion;
  if (patch.gvlVendorId !== undefined) set.gvl_vendor_id = patch.gvlVendorId;
  if (patch.mediaTypes !== undefined) set.media_types = JSON.stringify(patch.mediaTypes);
  if (patch.updatedAtMs !== undefined) set.updated_at_ms = patch.updatedAtMs;
  return set;
}

/** `DemandPartnerStore` over `db`. `list()` answers partners in creation order. */
export function createDemandPartnerQueries(db: Kysely<Database>): DemandPartnerStore {
  const get = async (id: string): Promise<DemandPartnerRecord | undefined> => {
    const row = await db.selectFrom('demand_partners').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toPartner(row) : undefined;
  };

  return {
    async create(partner: DemandPartnerRecord): Promise<void> {
      await db
        .insertInto('demand_partners')
        .values({
          id: partner.id,
          name: partner.name,
          endpoint: partner.endpoint,
          adapter: partner.adapter,
          timeout_ms: partner.timeoutMs,
          gzip: toDbBool(partner.gzip),
          qps_limit: partner.qpsLimit,
          currency: partner.currency,
          enabled: toDbBool(partner.enabled),
          openrtb_version: partner.openrtbVersion,
          gvl_vendor_id: partner.gvlVendorId,
          media_types: JSON.stringify(partner.mediaTypes),
          created_at_ms: partner.createdAtMs,
          updated_at_ms: partner.updatedAtMs,
        })
        .execute();
    },

    get,

    async list(): Promise<DemandPartnerRecord[]> {
      const rows = await db.selectFrom('demand_partners').selectAll().orderBy('created_at_ms').orderBy('id').execute();
      return rows.map(toPartner);
    },

    async update(id, patch): Promise<DemandPartnerRecord | undefined> {
      const set = toUpdate(patch);
      if (Object.keys(set).length > 0) {
        const result = await db.updateTable('demand_partners').set(set).where('id', '=', id).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return undefined;
      }
      return get(id);
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('demand_partners').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
