/**
 * Picks the backend from `DATABASE_URL` (DESIGN section 9): `postgres://` / `postgresql://` is
 * PostgreSQL (`postgres/index.ts`; `?schema=<name>` puts adx's tables in that schema); anything
 * else is a SQLite file path, with an optional `sqlite:` or `file:` prefix.
 */
import type { Store } from './ports.js';
import { openPostgresStore } from './postgres/index.js';
import { openSqliteStore } from './sqlite/index.js';

/** Which backend a database URL names, and the SQLite path when it is SQLite. */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

/**
 * Parses a database URL. `sqlite://x`, `sqlite:x`, `file://x` and `file:x` all name the file `x`
 * (so `sqlite:///var/adx.db` is the absolute path `/var/adx.db`); a bare path is taken as it is.
 * Throws on an empty string.
 */
export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  const url = databaseUrl.trim();
  if (url === '') throw new Error('database URL is empty');
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const match = /^(sqlite|file):(\/\/)?/i.exec(url);
  const path = match ? url.slice(match[0].length) : url;
  if (path === '') throw new Error(`database URL "${databaseUrl}" names no file`);
  return { kind: 'sqlite', path };
}

/**
 * Opens the store `databaseUrl` names (not migrated: call `migrate()`). PostgreSQL connects lazily,
 * so an unreachable server shows at `migrate()`; rejects at once for a PostgreSQL URL with an
 * invalid `schema`, and when the SQLite file cannot be opened.
 */
export async function openStore(databaseUrl: string): Promise<Store> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.kind === 'postgres') return openPostgresStore({ url: target.url });
  return openSqliteStore({ path: target.path });
}
