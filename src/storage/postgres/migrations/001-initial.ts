/**
 * PostgreSQL migration 001: the initial tables, the twin of `sqlite/migrations/001-initial.ts`
 * (same table, column and index names; columns explained in `storage/schema.ts`).
 *
 * Types follow the portability rules of `storage/schema.ts`: `bigint` for ms times, micros and
 * counts (read back as numbers: the store's pool parses int8 into Number, and every value fits in
 * 2^53), `smallint` 0/1 for booleans, `double precision` for `bids.mbr`, JSON `text` for lists.
 * Keys are `text COLLATE "C"`, so ordering by id is byte order as on SQLite whatever the
 * database's default collation, and their indexes compare bytes.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 001, in order. */
export const INITIAL_STATEMENTS: readonly string[] = [
  `create table publishers (
    id text collate "C" primary key,
    name text not null,
    domain text,
    domains text not null default '[]',
    browser_access smallint not null default 0,
    created_at_ms bigint not null,
    updated_at_ms bigint not null
  )`,
  `create table publisher_keys (
    id text collate "C" primary key,
    publisher_id text collate "C" not null references publishers (id) on delete cascade,
    key_hash text collate "C" not null unique,
    prefix text not null,
    created_at_ms bigint not null,
    expires_at_ms bigint
  )`,
  `create index publisher_keys_publisher_id on publisher_keys (publisher_id)`,
  `create table demand_partners (
    id text collate "C" primary key,
    name text not null,
    endpoint text not null,
    adapter text not null default 'openrtb25',
    timeout_ms integer not null default 1000,
    gzip smallint not null default 0,
    qps_limit integer,
    currency text not null default 'USD',
    enabled smallint not null default 1,
    created_at_ms bigint not null,
    updated_at_ms bigint not null
  )`,
  // No foreign keys from bids/notices/counters to publishers or partners: deleting a publisher
  // must not fail, nor erase the money it earned.
  `create table bids (
    bid_id text collate "C" primary key,
    auction_id text not null,
    request_id text not null,
    imp_id text not null,
    publisher_id text not null,
    partner_id text not null,
    partner_request_id text not null,
    partner_bid_id text not null,
    seat text not null,
    ad_id text,
    partner_currency text not null,
    clearing_partner_micros bigint not null,
    mbr double precision not null,
    partner_nurl text,
    partner_burl text,
    created_at_ms bigint not null
  )`,
  // For pruning old bids by age.
  `create index bids_created_at_ms on bids (created_at_ms)`,
  `create table notices (
    bid_id text collate "C" not null,
    kind text collate "C" not null,
    publisher_id text not null,
    partner_id text not null,
    auction_id text not null,
    net_usd_micros bigint not null,
    gross_usd_micros bigint not null,
    price_flagged smallint not null default 0,
    source text not null,
    received_at_ms bigint not null,
    constraint notices_pkey primary key (bid_id, kind)
  )`,
  `create table counters (
    publisher_id text collate "C" not null,
    minute_start_ms bigint not null,
    requests bigint not null default 0,
    imps bigint not null default 0,
    imps_filled bigint not null default 0,
    bids bigint not null default 0,
    wins bigint not null default 0,
    impressions bigint not null default 0,
    revenue_gross_micros bigint not null default 0,
    revenue_net_micros bigint not null default 0,
    constraint counters_pkey primary key (publisher_id, minute_start_ms)
  )`,
  // Range totals over every publisher (daily reports, alert windows).
  `create index counters_minute_start_ms on counters (minute_start_ms)`,
  `create table settings (
    key text collate "C" primary key,
    value text not null
  )`,
];

/** Creates publishers, publisher_keys, demand_partners, bids, notices, counters and settings. */
export const migration001Initial: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, INITIAL_STATEMENTS);
  },
};
