/**
 * The query modules of every port, built over one `Kysely<Database>`. A backend (SQLite,
 * PostgreSQL) opens its connection, runs its own migrations, and reuses these.
 */
import type { Kysely } from 'kysely';
import type { Store } from '../ports.js';
import type { Database } from '../schema.js';
import { createAuctionWriter } from './auction-writes.js';
import { createBidQueries } from './bids.js';
import { createCounterQueries } from './counters.js';
import { createDemandPartnerQueries } from './demand-partners.js';
import { createNoticeQueries } from './notices.js';
import { createOutboxQueries } from './outbox.js';
import { createPublisherQueries } from './publishers.js';
import { createReportingQueries } from './reporting.js';
import { createSeriesQueries } from './series.js';
import { createSettingsQueries } from './settings.js';
import { createQueryTemplates } from './templates.js';
import { createWebhookEndpointQueries } from './webhook-endpoints.js';

/** The per-family stores of `Store` and `writeAuction` (everything but lifecycle: kind, migrate, ping, close). */
export type QueryStores = Pick<
  Store,
  'publishers' | 'demandPartners' | 'bids' | 'notices' | 'counters' | 'series' | 'settings' | 'webhookEndpoints' | 'outbox' | 'reporting' | 'writeAuction'
>;

/** What the backend's SQL dialect can do, where the query modules differ by backend. */
export interface QueryDialectOptions {
  /** `FOR UPDATE SKIP LOCKED` (PostgreSQL: true; SQLite: false, the default). */
  supportsSkipLocked?: boolean;
}

/** Builds every port's query module over `db`; nothing runs until a method is called. */
export function createQueryStores(db: Kysely<Database>, dialect: QueryDialectOptions = {}): QueryStores {
  // The hot writes (bid path, deliveries) run compiled templates; SQL text depends on the dialect.
  const templates = createQueryTemplates();
  return {
    publishers: createPublisherQueries(db),
    demandPartners: createDemandPartnerQueries(db),
    bids: createBidQueries(db),
    notices: createNoticeQueries(db),
    counters: createCounterQueries(db),
    series: createSeriesQueries(db),
    settings: createSettingsQueries(db),
    webhookEndpoints: createWebhookEndpointQueries(db),
    outbox: createOutboxQueries(db, { supportsSkipLocked: dialect.supportsSkipLocked ?? false, templates }),
    reporting: createReportingQueries(db),
    writeAuction: createAuctionWriter(db, templates),
  };
}

export {
  createAuctionWriter,
  createBidQueries,
  createCounterQueries,
  createDemandPartnerQueries,
  createNoticeQueries,
  createOutboxQueries,
  createPublisherQueries,
  createReportingQueries,
  createSeriesQueries,
  createSettingsQueries,
  createWebhookEndpointQueries,
};
