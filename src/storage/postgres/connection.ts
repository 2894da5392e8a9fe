/**
 * Connection settings of the PostgreSQL backend: the database URL split into what `pg` reads and
 * the adx-only `schema` parameter, and the per-pool type parsers.
 *
 * URL forms accepted (libpq-style, parsed by `pg-connection-string`):
 * - `postgres://user:password@host:5432/db` (also `postgresql://`);
 * - `...?schema=adx_blue`: adx puts its tables in that PostgreSQL schema (created by `migrate()`)
 *   by setting `search_path` on every connection, so several exchanges can share one database;
 * - `...?options=-c%20search_path%3Dadx_blue`: the libpq way; passed to the server as it is.
 */
import pg from 'pg';

/** PostgreSQL type OIDs parsed differently from `pg`'s defaults. */
const INT8_OID = 20;

/** A schema name adx accepts: an unquoted SQL identifier (letters, digits, `_`; at most 63 bytes). */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** What `parsePostgresUrl` answers. */
export interface PostgresConnectionSettings {
  /** The URL without the adx-only `schema` parameter (and without `options` when it was merged). */
  connectionString: string;
  /** The schema adx uses, or undefined for the server's default `search_path`. */
  schema: string | undefined;
  /** Server options for the startup packet (`-c search_path=...` and any the URL gave), or undefined. */
  options: string | undefined;
}

/**
 * Splits `url` into connection settings. `schemaOverride` (the store option) wins over the URL's
 * `schema` parameter.
 * @throws Error when the schema is not a plain identifier (`[A-Za-z_][A-Za-z0-9_]*`, at most 63 characters).
 */
export function parsePostgresUrl(url: string, schemaOverride?: string): PostgresConnectionSettings {
  const queryAt = url.indexOf('?');
  const base = queryAt === -1 ? url : url.slice(0, queryAt);
  const params = new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1));
  const schema = schemaOverride ?? params.get('schema') ?? undefined;
  params.delete('schema');
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`PostgreSQL schema ${JSON.stringify(schema)} is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)`);
  }
  // pg lets the URL's `options` override the config object's, so merge them here, in the config.
  let options: string | undefined;
  if (schema !== undefined) {
    const fromUrl = params.get('options');
    params.delete('options');
    options = [fromUrl, `-c search_path=${schema}`].filter((o): o is string => !!o).join(' ');
  }
  const query = params.toString();
  return { connectionString: query === '' ? base : `${base}?${query}`, schema, options };
}

/** `bigint` text as a number: adx keeps ms times, micros and counts below 2^53. */
function parseInt8(text: string): number {
  return Number(text);
}

/**
 * Type parsers for one pool: `int8` (bigint, and `count(*)`) as a JS number instead of `pg`'s
 * default string; everything else as `pg` parses it (`numeric`, e.g. `sum(bigint)`, stays a string,
 * which the query modules read through `fromDbInt`). Scoped to the pool that gets it, never set on
 * `pg.types` globally, so other `pg` users in the process are unaffected.
 */
export const adxPgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID && (format === undefined || format === 'text')) return parseInt8;
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Quotes an identifier for SQL text (`"name"`, inner quotes doubled). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
