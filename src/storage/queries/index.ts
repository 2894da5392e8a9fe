/**
 * The query modules of every port, built over one `Kysely<Database>`. A backend (SQLite,
 * PostgreSQL) opens its connection, runs its own migrations, and reuses these.
 */
import type { Kysely } from 'kysely';
import type { Store } from '../ports.js';
import type { Database } from '../schema.js';
import { createBidQueries } from './bids.js';
import { createCounterQueries } from './counters.js';
import { createDemandPartnerQueries } from './demand-partners.js';
import { createNoticeQueries } from './notices.js';
import { createPublisherQueries } from './publishers.js';
import { createSettingsQueries } from './settings.js';

/** The per-family stores of `Store` (everything but lifecycle: kind, migrate, ping, close). */
export type QueryStores = Pick<Store, 'publishers' | 'demandPartners' | 'bids' | 'notices' | 'counters' | 'settings'>;

/** Builds every port's query module over `db`; nothing runs until a method is called. */
export function createQueryStores(db: Kysely<Database>): QueryStores {
  return {
    publishers: createPublisherQueries(db),
    demandPartners: createDemandPartnerQueries(db),
    bids: createBidQueries(db),
    notices: createNoticeQueries(db),
    counters: createCounterQueries(db),
    settings: createSettingsQueries(db),
  };
}

export { createBidQueries, createCounterQueries, createDemandPartnerQueries, createNoticeQueries, createPublisherQueries, createSettingsQueries };
