/**
 * Publisher and API key queries (`PublisherStore`), portable SQL over `Kysely<Database>` so the
 * SQLite and PostgreSQL backends share them.
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ApiKeyRecord, PublisherRecord, PublisherStore, SellerType } from '../ports.js';
import { fromDbBool, fromDbInt, toDbBool, type Database, type PublishersTable } from '../schema.js';

const PUBLISHER_COLUMNS = [
  'publishers.id',
  'publishers.name',
  'publishers.domain',
  'publishers.domains',
  'publishers.browser_access',
  'publishers.auction_type',
  'publishers.reserve_price_micros',
  'publishers.seller_type',
  'publishers.is_confidential',
  'publishers.created_at_ms',
  'publishers.updated_at_ms',
] as const;

/** A `publishers` row as a record (domains parsed from JSON text). */
function toPublisher(row: Selectable<PublishersTable>): PublisherRecord {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    domains: parseDomains(row.domains),
    browserAccess: fromDbBool(row.browser_access),
    auctionType: Number(row.auction_type) === 2 ? 2 : 1,
    reservePriceMicros: fromDbInt(row.reserve_price_micros),
    sellerType: toSellerType(row.seller_type),
    isConfidential: fromDbBool(row.is_confidential),
    createdAtMs: fromDbInt(row.created_at_ms),
    updatedAtMs: fromDbInt(row.updated_at_ms),
  };
}

/** A stored `seller_type`; anything unexpected reads as the default `PUBLISHER`. */
function toSellerType(value: string): SellerType {
  return value === 'INTERMEDIARY' || value === 'BOTH' ? value : 'PUBLISHER';
}

/** Stored JSON text to a string list; anything unexpected reads as an empty list. */
function parseDomains(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((d): d is string => typeof d === 'string') : [];
  } catch {
    return [];
  }
}

/** The defined fields of a patch as column values. */
function toUpdate(patch: Partial<Omit<PublisherRecord, 'id' | 'createdAtMs'>>): Updateable<PublishersTable> {
  const set: Updateable<PublishersTable> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.domain !== undefined) set.domain = patch.domain;
  if (patch.domains !== undefined) set.domains = JSON.stringify(patch.domains);
  if (patch.browserAccess !== undefined) set.browser_access = toDbBool(patch.browserAccess);
  if (patch.auctionType !== undefined) set.auction_type = patch.auctionType;
  if (patch.reservePriceMicros !== undefined) set.reserve_price_micros = patch.reservePriceMicros;
  if (patch.sellerType !== undefined) set.seller_type = patch.sellerType;
  if (patch.isConfidential !== undefined) set.is_confidential = toDbBool(patch.isConfidential);
  if (patch.updatedAtMs !== undefined) set.updated_at_ms = patch.updatedAtMs;
  return set;
}

/**
 * `PublisherStore` over `db`. Keys are removed with their publisher by the foreign key's
 * `ON DELETE CASCADE` (the backend must enforce foreign keys). A key authenticates while
 * `expires_at_ms` is null or strictly greater than `nowMs`.
 */
export function createPublisherQueries(db: Kysely<Database>): PublisherStore {
  const get = async (id: string): Promise<PublisherRecord | undefined> => {
    const row = await db.selectFrom('publishers').select(PUBLISHER_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row ? toPublisher(row) : undefined;
  };

  return {
    async create(publisher: PublisherRecord, key: ApiKeyRecord): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('publishers')
          .values({
            id: publisher.id,
            name: publisher.name,
            domain: publisher.domain,
            domains: JSON.stringify(publisher.domains),
            browser_access: toDbBool(publisher.browserAccess),
            auction_type: publisher.auctionType,
            reserve_price_micros: publisher.reservePriceMicros,
            seller_type: publisher.sellerType,
            is_confidential: toDbBool(publisher.isConfidential),
            created_at_ms: publisher.createdAtMs,
            updated_at_ms: publisher.updatedAtMs,
          })
          .execute();
        await trx.insertInto('publisher_keys').values(toKeyRow(key)).execute();
      });
    },

    get,

    async list(): Promise<PublisherRecord[]> {
      const rows = await db.selectFrom('publishers').select(PUBLISHER_COLUMNS).orderBy('created_at_ms').orderBy('id').execute();
      return rows.map(toPublisher);
    },

    async update(id, patch): Promise<PublisherRecord | undefined> {
      const set = toUpdate(patch);
      if (Object.keys(set).length > 0) {
        const result = await db.updateTable('publishers').set(set).where('id', '=', id).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return undefined;
      }
      return get(id);
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('publishers').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async findByKeyHash(keyHash: string, nowMs: number): Promise<PublisherRecord | undefined> {
      const row = await db
        .selectFrom('publisher_keys')
        .innerJoin('publishers', 'publishers.id', 'publisher_keys.publisher_id')
        .select(PUBLISHER_COLUMNS)
        .where('publisher_keys.key_hash', '=', keyHash)
        .where((eb) => eb.or([eb('publisher_keys.expires_at_ms', 'is', null), eb('publisher_keys.expires_at_ms', '>', nowMs)]))
        .executeTakeFirst();
      return row ? toPublisher(row) : undefined;
    },

    async rotateKey(key: ApiKeyRecord, graceUntilMs: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        // Only keys without an expiry get the grace period: a key already on its way out keeps
        // its earlier end, so rotating twice never extends an old key's life.
        await trx
          .updateTable('publisher_keys')
          .set({ expires_at_ms: graceUntilMs })
          .where('publisher_id', '=', key.publisherId)
          .where('expires_at_ms', 'is', null)
          .execute();
        await trx.insertInto('publisher_keys').values(toKeyRow(key)).execute();
      });
    },
  };
}

function toKeyRow(key: ApiKeyRecord) {
  return {
    id: key.id,
    publisher_id: key.publisherId,
    key_hash: key.keyHash,
    prefix: key.prefix,
    created_at_ms: key.createdAtMs,
    expires_at_ms: key.expiresAtMs,
  };
}
