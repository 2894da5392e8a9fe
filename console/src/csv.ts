/**
 * CSV (RFC 4180) of a report table: a header row of the column keys, one row per object; fields
 * quoted when they hold a comma, quote, CR or LF, quotes doubled; CRLF line ends. A cell that
 * starts with `=`, `+`, `-` or `@` and is not a number is prefixed with `'` so a spreadsheet does
 * not run it as a formula (OWASP "CSV injection").
 */

function cell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@]/.test(text) && !/^[-+]?\d/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV text of `rows` over `columns` (in that order). */
export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  const lines = [columns.map(cell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
