/**
 * Folding upsert-add rows before they are written: PostgreSQL refuses an `ON CONFLICT DO UPDATE`
 * that touches the same row twice in one statement, so every key of a batch must appear once.
 */

/**
 * Sums `rows` that share `keyOf(row)` into the first row with that key, adding each of `columns`
 * (integer counts or micros); other fields are taken from the first row. Returns one row per key,
 * in first-seen order. Mutates only the rows it returns. Pure otherwise; never throws.
 */
export function sumRowsByKey<R extends { [K in C]: number }, C extends keyof R>(rows: Iterable<R>, keyOf: (row: R) => string, columns: readonly C[]): R[] {
  const byKey = new Map<string, R>();
  for (const row of rows) {
    const key = keyOf(row);
    const into = byKey.get(key);
    if (into === undefined) {
      byKey.set(key, row);
      continue;
    }
    for (const column of columns) (into[column] as number) += row[column];
  }
  return [...byKey.values()];
}
