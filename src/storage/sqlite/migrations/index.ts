/**
 * The SQLite migrations, listed statically (no directory scanning, so the compiled `dist/` works
 * wherever it is installed). Names sort in the order they apply; add the next number below.
 */
import type { Migration, MigrationProvider } from 'kysely';
import { migration001Initial } from './001-initial.js';
import { migration002Webhooks } from './002-webhooks.js';
import { migration003Reporting } from './003-reporting.js';
import { migration004Pricing } from './004-pricing.js';
import { migration005Privacy } from './005-privacy.js';
import { migration006MediaTypes } from './006-media-types.js';
import { migration007StatsSeries } from './007-stats-series.js';

/** Every SQLite migration by name, in order. */
export const sqliteMigrations: Readonly<Record<string, Migration>> = {
  '001-initial': migration001Initial,
  '002-webhooks': migration002Webhooks,
  '003-reporting': migration003Reporting,
  '004-pricing': migration004Pricing,
  '005-privacy': migration005Privacy,
  '006-media-types': migration006MediaTypes,
  '007-stats-series': migration007StatsSeries,
};

/** A kysely `MigrationProvider` answering `sqliteMigrations`. */
export const sqliteMigrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...sqliteMigrations }),
};
