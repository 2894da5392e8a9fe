/**
 * Counter queries (`CounterStore`), portable SQL over `Kysely<Database>`: upsert-add per
 * publisher and UTC minute, and sums over a range of minutes.
 */
import type { Insertable, Kysely } from 'kysely';
import type { CounterDelta, CounterStore, CounterTotals, SeriesDeltas } from '../ports.js';
import { fromDbInt, type CountersTable, type Database } from '../schema.js';
import { addLatencyBuckets, addPartnerCounters } from './series.js';
import { sumRowsByKey } from './sum-rows.js';

/** Rows per INSERT statement (10 parameters each), well under both backends' parameter limits. */
const ROWS_PER_STATEMENT = 500;

/** The additive columns of `counters`. */
const COUNTER_COLUMNS = ['requests', 'imps', 'imps_filled', 'bids', 'wins', 'impressions', 'revenue_gross_micros', 'revenue_net_micros'] as const;

/** Sums deltas that share (publisher, minute) into one row each (`sumRowsByKey`). */
function mergeByKey(deltas: CounterDelta[]): Insertable<CountersTable>[] {
  const rows = deltas.map((d) => ({
    publisher_id: d.publisherId,
    minute_start_ms: d.minuteStartMs,
    requests: d.requests,
    imps: d.imps,
    imps_filled: d.impsFilled,
    bids: d.bids,
    wins: d.wins,
    impressions: d.impressions,
    revenue_gross_micros: d.revenueGrossMicros,
    revenue_net_micros: d.revenueNetMicros,
  }));
  return sumRowsByKey(rows, (r) => `${r.publisher_id}\u0000${r.minute_start_ms}`, COUNTER_COLUMNS);
}

/**
 * `CounterStore` over `db`. `add` is `INSERT ... ON CONFLICT (publisher_id, minute_start_ms) DO
 * UPDATE SET x = counters.x + excluded.x` (the same SQL on SQLite and PostgreSQL), all deltas in
 * one transaction, with the partner counters and latency buckets of `series` (`queries/series.ts`). `totals` sums over `[fromMs, toMs)`, one entry per publisher with rows, ordered
 * by publisher id.
 */
export function createCounterQueries(db: Kysely<Database>): CounterStore {
  return {
    async add(deltas: CounterDelta[], series: SeriesDeltas = {}): Promise<void> {
      const partners = series.partners ?? [];
      const latency = series.latency ?? [];
      if (deltas.length === 0 && partners.length === 0 && latency.length === 0) return;
      const rows = mergeByKey(deltas);
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
          await trx
            .insertInto('counters')
            .values(rows.slice(start, start + ROWS_PER_STATEMENT))
            .onConflict((oc) =>
              oc.columns(['publisher_id', 'minute_start_ms']).doUpdateSet((eb) => ({
                requests: eb('counters.requests', '+', eb.ref('excluded.requests')),
                imps: eb('counters.imps', '+', eb.ref('excluded.imps')),
                imps_filled: eb('counters.imps_filled', '+', eb.ref('excluded.imps_filled')),
                bids: eb('counters.bids', '+', eb.ref('excluded.bids')),
                wins: eb('counters.wins', '+', eb.ref('excluded.wins')),
                impressions: eb('counters.impressions', '+', eb.ref('excluded.impressions')),
                revenue_gross_micros: eb('counters.revenue_gross_micros', '+', eb.ref('excluded.revenue_gross_micros')),
                revenue_net_micros: eb('counters.revenue_net_micros', '+', eb.ref('excluded.revenue_net_micros')),
              })),
            )
            .execute();
        }
        if (partners.length > 0) await addPartnerCounters(trx, partners);
        if (latency.length > 0) await addLatencyBuckets(trx, latency);
      });
    },

    async totals(fromMs: number, toMs: number, publisherId?: string): Promise<CounterTotals[]> {
      let query = db
        .selectFrom('counters')
        .select((eb) => [
          'publisher_id',
          eb.fn.sum<number>('requests').as('requests'),
          eb.fn.sum<number>('imps').as('imps'),
          eb.fn.sum<number>('imps_filled').as('imps_filled'),
          eb.fn.sum<number>('bids').as('bids'),
          eb.fn.sum<number>('wins').as('wins'),
          eb.fn.sum<number>('impressions').as('impressions'),
          eb.fn.sum<number>('revenue_gross_micros').as('revenue_gross_micros'),
          eb.fn.sum<number>('revenue_net_micros').as('revenue_net_micros'),
        ])
        .where('minute_start_ms', '>=', fromMs)
        .where('minute_start_ms', '<', toMs);
      if (publisherId !== undefined) query = query.where('publisher_id', '=', publisherId);
      const rows = await query.groupBy('publisher_id').orderBy('publisher_id').execute();
      return rows.map((row) => ({
        publisherId: row.publisher_id,
        requests: fromDbInt(row.requests),
        imps: fromDbInt(row.imps),
        impsFilled: fromDbInt(row.imps_filled),
        bids: fromDbInt(row.bids),
        wins: fromDbInt(row.wins),
        impressions: fromDbInt(row.impressions),
        revenueGrossMicros: fromDbInt(row.revenue_gross_micros),
        revenueNetMicros: fromDbInt(row.revenue_net_micros),
      }));
    },
  };
}
