/**
 * Settings queries (`SettingsStore`), portable SQL over `Kysely<Database>`.
 */
import type { Kysely } from 'kysely';
import type { SettingsStore } from '../ports.js';
import type { Database } from '../schema.js';

/**
 * `SettingsStore` over `db`. `setIfAbsent` is race-free across nodes: `ON CONFLICT DO NOTHING`
 * then a read in the same transaction, so every caller answers the one value that was stored.
 */
export function createSettingsQueries(db: Kysely<Database>): SettingsStore {
  return {
    async get(key: string): Promise<string | undefined> {
      const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
      return row?.value;
    },

    async setIfAbsent(key: string, value: string): Promise<string> {
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto('settings')
          .values({ key, value })
          .onConflict((oc) => oc.column('key').doNothing())
          .execute();
        const row = await trx.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
        return row.value;
      });
    },

    async set(key: string, value: string): Promise<void> {
      await db
        .insertInto('settings')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
        .execute();
    },
  };
}
