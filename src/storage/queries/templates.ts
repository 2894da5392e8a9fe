/**
 * Query templates: a kysely query built and compiled ONCE per shape, then run many times with new
 * values (kysely's "splitting query building and execution" recipe: `compile()` once,
 * `executeQuery(CompiledQuery.raw(sql, parameters))` after). Building a query through kysely's
 * immutable builder and compiling it costs more than SQLite takes to run a small INSERT; the
 * statements written per delivery and per group commit ran it thousands of times a second (about
 * 9% of the exchange's CPU with webhooks on).
 *
 * How a shape is learnt: the builder is called with rows whose every value is a unique sentinel
 * string; after `compile()`, each bound parameter that is a sentinel becomes a slot (row index,
 * column) and any other parameter a constant. Running the template fills the slots from the given
 * rows in that order. The builder is the same function the code would run without templates, so
 * the SQL cannot drift from it.
 *
 * Rules for a builder: it may only pass the rows' values to kysely as values (never into
 * `sql.lit`, identifiers, or control flow: a value that changes the query's shape would be baked
 * into the template); the key given to `run` must name one shape (callers add the row count).
 * Compiled SQL depends on the dialect, so each store builds its own templates.
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { Database } from '../schema.js';

/** One row of values for a template, column (or field) name -> value. */
export type TemplateRow = Record<string, unknown>;

/** Builds the query for `rows` over `executor` (a database or a transaction). */
export type TemplateBuilder<R> = (executor: Kysely<Database>, rows: readonly TemplateRow[]) => Compilable<R>;

/** Compiled templates of one store (one SQL dialect). */
export interface QueryTemplates {
  /**
   * Runs the query `build` makes for `rows` through `executor`, compiling it on the first call
   * with this `key` (which must identify the query's shape, row count included). `undefined`
   * values are bound as NULL. Rejects as `executeQuery` does (constraint violations, a closed
   * database); throws when the builder put a value into the SQL text instead of a parameter.
   */
  run<R>(executor: Kysely<Database>, key: string, build: TemplateBuilder<R>, rows: readonly TemplateRow[]): Promise<QueryResult<R>>;
}

type Slot = { row: number; column: string } | { constant: unknown };
interface Template {
  sql: string;
  slots: Slot[];
}

const SENTINEL = '\u0000adx-template\u0000';
/** Most templates kept (shapes x row counts); past it the cache starts over. */
const MAX_TEMPLATES = 2000;

/** Creates an empty template cache for one store. */
export function createQueryTemplates(): QueryTemplates {
  const templates = new Map<string, Template>();

  function compile<R>(executor: Kysely<Database>, build: TemplateBuilder<R>, rows: readonly TemplateRow[]): Template {
    const bySentinel = new Map<string, Slot>();
    const sentinelRows = rows.map((row, index) => {
      const out: TemplateRow = {};
      for (const column of Object.keys(row)) {
        const sentinel = `${SENTINEL}${index}\u0000${column}`;
        bySentinel.set(sentinel, { row: index, column });
        out[column] = sentinel;
      }
      return out;
    });
    const compiled = build(executor, sentinelRows).compile();
    if (compiled.sql.includes(SENTINEL)) throw new Error('query template: a value was written into the SQL text instead of a parameter');
    const slots = compiled.parameters.map((parameter): Slot => (typeof parameter === 'string' && bySentinel.get(parameter)) || { constant: parameter });
    return { sql: compiled.sql, slots };
  }

  return {
    async run(executor, key, build, rows) {
      let template = templates.get(key);
      if (template === undefined) {
        template = compile(executor, build, rows);
        if (templates.size >= MAX_TEMPLATES) templates.clear();
        templates.set(key, template);
      }
      const parameters = template.slots.map((slot) => ('column' in slot ? (rows[slot.row]?.[slot.column] ?? null) : slot.constant));
      return executor.executeQuery(CompiledQuery.raw(template.sql, parameters));
    },
  };
}

/**
 * Rows per INSERT statement of `insertInChunks`: keeps the bound parameters per statement
 * (rows x columns, 13-16 columns in the bid path's tables) well under SQLite's 32766 and
 * PostgreSQL's 65535 limits.
 */
export const ROWS_PER_STATEMENT = 500;

/**
 * Inserts `items` through `db` as rows (`toRow`) in statements of at most `ROWS_PER_STATEMENT`
 * rows, each built by `build`: with `templates` compiled once per row count under the key
 * `${key}.${rows}` (the bid path's writes), else built by kysely each time. Issues no statement
 * for an empty list. Rejects as the statements do (constraint violations, a closed database).
 */
export async function insertInChunks<T>(
  db: Kysely<Database>,
  items: readonly T[],
  toRow: (item: T) => TemplateRow,
  key: string,
  build: TemplateBuilder<unknown>,
  templates?: QueryTemplates,
): Promise<void> {
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) {
    const rows = items.slice(start, start + ROWS_PER_STATEMENT).map(toRow);
    if (templates) await templates.run(db, `${key}.${rows.length}`, build, rows);
    else await db.executeQuery(build(db, rows).compile());
  }
}
