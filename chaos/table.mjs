/**
 * The chaos table: one row per fault, fixed-width text, a totals line and the verdict.
 *
 * A row fails (`judge`) on any of: a 5xx answer (the matrix has no store-outage row, the only
 * place a 503 would be right); a late answer (each row's `late` already leaves out what it
 * documents as expected, see the overload row); an event lost; a dropped connection, except in
 * a row that allows it with a reason (the SIGKILL row: requests in flight at the kill); or one of
 * the row's own checks (`failures`). The run passes when every row does. Importing this module
 * does nothing.
 */

/** Column headers, in order. */
export const COLUMNS = ['fault', 'requests', '200', '204', '4xx', '5xx', 'dropped', 'late', 'events expected', 'events lost', 'note'];

/**
 * Everything that fails a row.
 * @param {import('./rows/kit.mjs').RowResult} row
 * @returns {string[]} empty when the row passes
 */
export function judge(row) {
  const out = [];
  if (row.s5xx > 0) out.push(`${row.s5xx} 5xx`);
  if (row.late > 0) out.push(`${row.late} late`);
  if (row.eventsLost > 0) out.push(`${row.eventsLost} events lost`);
  if (row.dropped > 0 && !row.allow?.dropped) out.push(`${row.dropped} dropped`);
  return [...out, ...row.failures];
}

/** @param {import('./rows/kit.mjs').RowResult} row */
function cells(row) {
  const failures = judge(row);
  const notes = [...(row.allow?.dropped && row.dropped > 0 ? [`dropped allowed: ${row.allow.dropped}`] : []), ...row.notes];
  const note = failures.length > 0 ? `FAIL: ${failures.join('; ')}${notes.length ? ` | ${notes.join('; ')}` : ''}` : `ok${notes.length ? `: ${notes.join('; ')}` : ''}`;
  return [
    row.fault,
    String(row.requests),
    String(row.s200),
    String(row.s204),
    String(row.s4xx),
    String(row.s5xx),
    String(row.dropped),
    String(row.late),
    String(row.eventsExpected),
    String(row.eventsLost),
    note,
  ];
}

/**
 * The table as text: first and last columns left-aligned, figures right-aligned, then a totals
 * line ending in PASS or FAIL.
 * @param {import('./rows/kit.mjs').RowResult[]} rows
 * @returns {{ text: string, pass: boolean }}
 */
export function renderTable(rows) {
  const body = rows.map(cells);
  const sum = (/** @type {keyof import('./rows/kit.mjs').RowResult} */ key) => rows.reduce((n, r) => n + Number(r[key] ?? 0), 0);
  const failed = rows.filter((r) => judge(r).length > 0).length;
  const pass = failed === 0 && rows.length > 0;
  const totals = [
    'total',
    String(sum('requests')),
    String(sum('s200')),
    String(sum('s204')),
    String(sum('s4xx')),
    String(sum('s5xx')),
    String(sum('dropped')),
    String(sum('late')),
    String(sum('eventsExpected')),
    String(sum('eventsLost')),
    pass ? `PASS (${rows.length} rows)` : `FAIL (${failed} of ${rows.length} rows failed)`,
  ];
  const all = [COLUMNS, ...body, totals];
  const last = COLUMNS.length - 1;
  const widths = COLUMNS.map((_, i) => (i === last ? 0 : Math.max(...all.map((r) => (r[i] ?? '').length))));
  const line = (/** @type {string[]} */ r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : i === last ? c : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w, i) => '-'.repeat(i === last ? 4 : w)).join('  ');
  return { text: [line(COLUMNS), rule, ...body.map(line), rule, line(totals)].join('\n'), pass };
}
