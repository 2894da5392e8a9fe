/**
 * Webhook endpoint queries (`WebhookEndpointStore`), portable SQL over `Kysely<Database>`.
 * The ciphertext fields are stored and answered as they are: encryption is `webhooks/secret-box.ts`'s
 * business, not the store's.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../ports.js';
import { fromDbBool, fromDbInt, fromDbIntOrNull, toDbBool, type Database, type WebhookEndpointsTable } from '../schema.js';

/** An endpoint patch, as the port accepts it. */
type EndpointPatch = Partial<Omit<WebhookEndpointRecord, 'id' | 'createdAtMs'>>;

/** Stored JSON text to a string list; anything unexpected reads as an empty list (= every kind). */
function parseEvents(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((e): e is string => typeof e === 'string') : [];
  } catch {
    return [];
  }
}

/** A `webhook_endpoints` row as a record. */
function toRecord(row: Selectable<WebhookEndpointsTable>): WebhookEndpointRecord {
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events),
    apiKeyCiphertext: row.api_key_ciphertext,
    publisherId: row.publisher_id,
    enabled: fromDbBool(row.enabled),
    description: row.description,
    secretCiphertext: row.secret_ciphertext,
    previousSecretCiphertext: row.previous_secret_ciphertext,
    previousSecretExpiresAtMs: fromDbIntOrNull(row.previous_secret_expires_at_ms),
    disabledReason: row.disabled_reason,
    lastSuccessAtMs: fromDbIntOrNull(row.last_success_at_ms),
    failingSinceMs: fromDbIntOrNull(row.failing_since_ms),
    createdAtMs: fromDbInt(row.created_at_ms),
    updatedAtMs: fromDbInt(row.updated_at_ms),
  };
}

function toRow(endpoint: WebhookEndpointRecord): Insertable<WebhookEndpointsTable> {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: JSON.stringify(endpoint.events),
    api_key_ciphertext: endpoint.apiKeyCiphertext,
    publisher_id: endpoint.publisherId,
    enabled: toDbBool(endpoint.enabled),
    description: endpoint.description,
    secret_ciphertext: endpoint.secretCiphertext,
    previous_secret_ciphertext: endpoint.previousSecretCiphertext,
    previous_secret_expires_at_ms: endpoint.previousSecretExpiresAtMs,
    disabled_reason: endpoint.disabledReason,
    last_success_at_ms: endpoint.lastSuccessAtMs,
    failing_since_ms: endpoint.failingSinceMs,
    created_at_ms: endpoint.createdAtMs,
    updated_at_ms: endpoint.updatedAtMs,
  };
}

/** The defined fields of a patch as column values; `null` clears a nullable field. */
function toUpdate(patch: EndpointPatch): Updateable<WebhookEndpointsTable> {
  const set: Updateable<WebhookEndpointsTable> = {};
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.events !== undefined) set.events = JSON.stringify(patch.events);
  if (patch.apiKeyCiphertext !== undefined) set.api_key_ciphertext = patch.apiKeyCiphertext;
  if (patch.publisherId !== undefined) set.publisher_id = patch.publisherId;
  if (patch.enabled !== undefined) set.enabled = toDbBool(patch.enabled);
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.secretCiphertext !== undefined) set.secret_ciphertext = patch.secretCiphertext;
  if (patch.previousSecretCiphertext !== undefined) set.previous_secret_ciphertext = patch.previousSecretCiphertext;
  if (patch.previousSecretExpiresAtMs !== undefined) set.previous_secret_expires_at_ms = patch.previousSecretExpiresAtMs;
  if (patch.disabledReason !== undefined) set.disabled_reason = patch.disabledReason;
  if (patch.lastSuccessAtMs !== undefined) set.last_success_at_ms = patch.lastSuccessAtMs;
  if (patch.failingSinceMs !== undefined) set.failing_since_ms = patch.failingSinceMs;
  if (patch.updatedAtMs !== undefined) set.updated_at_ms = patch.updatedAtMs;
  return set;
}

/**
 * `WebhookEndpointStore` over `db`. `list()` answers endpoints in creation order. `delete`
 * removes the endpoint's delivery attempts, outbox messages and the endpoint in one transaction
 * (there are no foreign keys to cascade, see migration 002).
 */
export function createWebhookEndpointQueries(db: Kysely<Database>): WebhookEndpointStore {
  const get = async (id: string): Promise<WebhookEndpointRecord | undefined> => {
    const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  };

  return {
    async create(endpoint: WebhookEndpointRecord): Promise<void> {
      await db.insertInto('webhook_endpoints').values(toRow(endpoint)).execute();
    },

    get,

    async list(): Promise<WebhookEndpointRecord[]> {
      const rows = await db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at_ms').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async update(id: string, patch: EndpointPatch): Promise<WebhookEndpointRecord | undefined> {
      const set = toUpdate(patch);
      if (Object.keys(set).length > 0) {
        const result = await db.updateTable('webhook_endpoints').set(set).where('id', '=', id).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return undefined;
      }
      return get(id);
    },

    async delete(id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('delivery_attempts')
          .where('message_id', 'in', (eb) => eb.selectFrom('outbox_messages').select('id').where('endpoint_id', '=', id))
          .execute();
        await trx.deleteFrom('outbox_messages').where('endpoint_id', '=', id).execute();
        const result = await trx.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      });
    },
  };
}
