/**
 * Runs a PostgreSQL migration's DDL statements one by one through kysely (inside the migrator's
 * transaction: PostgreSQL DDL is transactional, so a failed migration leaves nothing behind).
 * The SQL stays visible in each migration file as plain text (STYLE 9).
 */
import { sql, type Kysely } from 'kysely';

/** Executes each statement in order on `db`. Rejects with the first statement's error. */
export async function runStatements(db: Kysely<any>, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
