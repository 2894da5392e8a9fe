/**
 * Series queries (DESIGN section 7, `GET /v1/stats/series`), portable SQL over `Kysely<Database>`:
 * - writes (called inside the counter flush's transaction, `queries/counters.ts`): upsert-add of
 *   per-partner minute counters and of latency histogram buckets, so every node's flush sums into
 *   the same rows;
 * - reads: minute rows grouped into step buckets with `(minute_start_ms / step) * step`, integer
 *   division on both backends (SQLite integer operands, PostgreSQL bigint), so buckets are
 *   aligned on the epoch, which is UTC midnight;
 * - the roll-up of minute rows past the retention into their hour's first minute.
 */
import { sql, type Insertable, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type {
  CounterBucket,
  LatencyBucketCount,
  LatencyDelta,
  LatencyKind,
  PartnerCounterBucket,
  PartnerCounterDelta,
  SeriesRange,
  SeriesStore,
} from '../ports.js';
import { fromDbInt, type Database, type LatencyHistogramsTable, type PartnerCountersTable } from '../schema.js';
import { sumRowsByKey } from './sum-rows.js';

/** Rows per INSERT statement (at most 8 parameters each), well under both backends' parameter limits. */
const ROWS_PER_STATEMENT = 500;
const HOUR_MS = 3_600_000;

/** The additive columns of `partner_counters`. */
const PARTNER_COLUMNS = ['calls', 'bids', 'timeouts', 'errors', 'wins', 'privacy_blocked'] as const;

/** Sums partner deltas sharing (partner, minute) into one row each (`sumRowsByKey`). */
function mergePartnerDeltas(deltas: PartnerCounterDelta[]): Insertable<PartnerCountersTable>[] {
  const rows = deltas.map((d) => ({
    partner_id: d.partnerId,
    minute_start_ms: d.minuteStartMs,
    calls: d.calls,
    bids: d.bids,
    timeouts: d.timeouts,
    errors: d.errors,
    wins: d.wins,
    privacy_blocked: d.privacyBlocked,
  }));
  return sumRowsByKey(rows, (r) => `${r.partner_id}\u0000${r.minute_start_ms}`, PARTNER_COLUMNS);
}

/** Sums latency deltas sharing (kind, subject, minute, bucket); drops zero counts. */
function mergeLatencyDeltas(deltas: LatencyDelta[]): Insertable<LatencyHistogramsTable>[] {
  const rows = deltas
    .filter((d) => d.count !== 0)
    .map((d) => ({ kind: d.kind, subject_id: d.subjectId, minute_start_ms: d.minuteStartMs, le_ms: d.leMs, count: d.count }));
  return sumRowsByKey(rows, (r) => `${r.kind}\u0000${r.subject_id}\u0000${r.minute_start_ms}\u0000${r.le_ms}`, ['count'] as const);
}

/** Upsert-adds partner counter deltas inside `trx` (the counter flush's transaction). */
export async function addPartnerCounters(trx: Transaction<Database>, deltas: PartnerCounterDelta[]): Promise<void> {
  const rows = mergePartnerDeltas(deltas);
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('partner_counters')
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['partner_id', 'minute_start_ms']).doUpdateSet((eb) => ({
          calls: eb('partner_counters.calls', '+', eb.ref('excluded.calls')),
          bids: eb('partner_counters.bids', '+', eb.ref('excluded.bids')),
          timeouts: eb('partner_counters.timeouts', '+', eb.ref('excluded.timeouts')),
          errors: eb('partner_counters.errors', '+', eb.ref('excluded.errors')),
          wins: eb('partner_counters.wins', '+', eb.ref('excluded.wins')),
          privacy_blocked: eb('partner_counters.privacy_blocked', '+', eb.ref('excluded.privacy_blocked')),
        })),
      )
      .execute();
  }
}

/** Upsert-adds latency histogram bucket counts inside `trx`. */
export async function addLatencyBuckets(trx: Transaction<Database>, deltas: LatencyDelta[]): Promise<void> {
  const rows = mergeLatencyDeltas(deltas);
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('latency_histograms')
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['kind', 'subject_id', 'minute_start_ms', 'le_ms']).doUpdateSet((eb) => ({
          count: eb('latency_histograms.count', '+', eb.ref('excluded.count')),
        })),
      )
      .execute();
  }
}

/**
 * `(minute_start_ms / step) * step` with the step inlined as a literal, so the SELECT and GROUP BY
 * expressions are the same text (PostgreSQL matches them by text, not by parameter value).
 * @throws RangeError when `stepMs` is not a positive multiple of a minute.
 */
function bucketOf(stepMs: number): RawBuilder<number> {
  if (!Number.isSafeInteger(stepMs) || stepMs <= 0 || stepMs % 60_000 !== 0) throw new RangeError(`stepMs must be a positive multiple of 60000, got ${stepMs}`);
  return sql<number>`(minute_start_ms / ${sql.lit(stepMs)}) * ${sql.lit(stepMs)}`;
}

/**
 * Folds the minute rows of `table` before `beforeMs` that are not on an hour boundary into their
 * hour's first-minute row: insert the hourly sums with upsert-add, then delete the folded rows.
 * Identifiers are constants of this module, never input.
 */
async function rollUpTable(trx: Transaction<Database>, table: string, keys: readonly string[], columns: readonly string[], beforeMs: number): Promise<number> {
  const ident = (name: string) => sql.ref(name);
  const list = (names: readonly string[]) => sql.join(names.map(ident));
  const hour = sql`(minute_start_ms / ${sql.lit(HOUR_MS)}) * ${sql.lit(HOUR_MS)}`;
  const folded = sql`minute_start_ms < ${beforeMs} and minute_start_ms % ${sql.lit(HOUR_MS)} <> 0`;
  await sql`insert into ${sql.table(table)} (${list(keys)}, minute_start_ms, ${list(columns)})
    select ${list(keys)}, ${hour}, ${sql.join(columns.map((c) => sql`sum(${ident(c)})`))}
    from ${sql.table(table)} where ${folded}
    group by ${list(keys)}, ${hour}
    on conflict (${list(keys)}, minute_start_ms) do update set ${sql.join(
      columns.map((c) => sql`${ident(c)} = ${sql.table(table)}.${ident(c)} + excluded.${ident(c)}`),
    )}`.execute(trx);
  const deleted = await sql`delete from ${sql.table(table)} where ${folded}`.execute(trx);
  return Number(deleted.numAffectedRows ?? 0n);
}

/** `SeriesStore` over `db` (see the module comment and the port's contract). */
export function createSeriesQueries(db: Kysely<Database>): SeriesStore {
  return {
    async counterSeries(range: SeriesRange, publisherId?: string): Promise<CounterBucket[]> {
      const bucket = bucketOf(range.stepMs);
      let query = db
        .selectFrom('counters')
        .select((eb) => [
          bucket.as('bucket_start_ms'),
          eb.fn.sum<number>('requests').as('requests'),
          eb.fn.sum<number>('imps').as('imps'),
          eb.fn.sum<number>('imps_filled').as('imps_filled'),
          eb.fn.sum<number>('bids').as('bids'),
          eb.fn.sum<number>('wins').as('wins'),
          eb.fn.sum<number>('impressions').as('impressions'),
          eb.fn.sum<number>('revenue_gross_micros').as('revenue_gross_micros'),
          eb.fn.sum<number>('revenue_net_micros').as('revenue_net_micros'),
        ])
        .where('minute_start_ms', '>=', range.fromMs)
        .where('minute_start_ms', '<', range.toMs);
      if (publisherId !== undefined) query = query.where('publisher_id', '=', publisherId);
      const rows = await query.groupBy(bucket).orderBy(bucket).execute();
      return rows.map((row) => ({
        bucketStartMs: fromDbInt(row.bucket_start_ms),
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

    async partnerSeries(range: SeriesRange, partnerId: string): Promise<PartnerCounterBucket[]> {
      const bucket = bucketOf(range.stepMs);
      const rows = await db
        .selectFrom('partner_counters')
        .select((eb) => [
          bucket.as('bucket_start_ms'),
          eb.fn.sum<number>('calls').as('calls'),
          eb.fn.sum<number>('bids').as('bids'),
          eb.fn.sum<number>('timeouts').as('timeouts'),
          eb.fn.sum<number>('errors').as('errors'),
          eb.fn.sum<number>('wins').as('wins'),
          eb.fn.sum<number>('privacy_blocked').as('privacy_blocked'),
        ])
        .where('partner_id', '=', partnerId)
        .where('minute_start_ms', '>=', range.fromMs)
        .where('minute_start_ms', '<', range.toMs)
        .groupBy(bucket)
        .orderBy(bucket)
        .execute();
      return rows.map((row) => ({
        bucketStartMs: fromDbInt(row.bucket_start_ms),
        calls: fromDbInt(row.calls),
        bids: fromDbInt(row.bids),
        timeouts: fromDbInt(row.timeouts),
        errors: fromDbInt(row.errors),
        wins: fromDbInt(row.wins),
        privacyBlocked: fromDbInt(row.privacy_blocked),
      }));
    },

    async latencySeries(range: SeriesRange, kind: LatencyKind, subjectId?: string): Promise<LatencyBucketCount[]> {
      const bucket = bucketOf(range.stepMs);
      let query = db
        .selectFrom('latency_histograms')
        .select((eb) => [bucket.as('bucket_start_ms'), 'le_ms', eb.fn.sum<number>('count').as('count')])
        .where('kind', '=', kind)
        .where('minute_start_ms', '>=', range.fromMs)
        .where('minute_start_ms', '<', range.toMs);
      if (subjectId !== undefined) query = query.where('subject_id', '=', subjectId);
      const rows = await query.groupBy([bucket, 'le_ms']).orderBy(bucket).orderBy('le_ms').execute();
      return rows.map((row) => ({ bucketStartMs: fromDbInt(row.bucket_start_ms), leMs: fromDbInt(row.le_ms), count: fromDbInt(row.count) }));
    },

    async rollUpMinutes(beforeMs: number): Promise<number> {
      if (!Number.isSafeInteger(beforeMs) || beforeMs % HOUR_MS !== 0) throw new RangeError(`beforeMs must be an hour boundary, got ${beforeMs}`);
      return db.transaction().execute(async (trx) => {
        let folded = 0;
        folded += await rollUpTable(
          trx,
          'counters',
          ['publisher_id'],
          ['requests', 'imps', 'imps_filled', 'bids', 'wins', 'impressions', 'revenue_gross_micros', 'revenue_net_micros'],
          beforeMs,
        );
        folded += await rollUpTable(trx, 'partner_counters', ['partner_id'], PARTNER_COLUMNS, beforeMs);
        folded += await rollUpTable(trx, 'latency_histograms', ['kind', 'subject_id', 'le_ms'], ['count'], beforeMs);
        return folded;
      });
    },
  };
}
