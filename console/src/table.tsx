/**
 * A sortable table: each column header is a button; the sorted column carries `aria-sort`
 * (WAI-ARIA sortable table pattern), so the order is announced and usable with a keyboard.
 */
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';

/** One column: what it shows and how it sorts. */
export interface Column<R> {
  key: string;
  label: string;
  /** The cell's content (default: the row's `key` field as text). */
  render?: (row: R) => ComponentChildren;
  /** The value sorted on (default: the row's `key` field). */
  sortValue?: (row: R) => string | number | boolean | null | undefined;
  numeric?: boolean;
  /** Not sortable (action buttons). */
  noSort?: boolean;
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/** A table of `rows` with sortable `columns`; `rowKey` names a row for Preact. */
export function SortableTable<R>(props: {
  caption: string;
  columns: Array<Column<R>>;
  rows: R[];
  rowKey: (row: R) => string;
  initialSort?: { key: string; dir: 'ascending' | 'descending' };
  empty?: string;
  testId?: string;
}) {
  const [sort, setSort] = useState(props.initialSort ?? null);
  const sorted = useMemo(() => {
    if (!sort) return props.rows;
    const column = props.columns.find((c) => c.key === sort.key);
    if (!column) return props.rows;
    const value = column.sortValue ?? ((row: R) => (row as Record<string, unknown>)[column.key] as string | number);
    const out = [...props.rows].sort((a, b) => compare(value(a), value(b)));
    return sort.dir === 'descending' ? out.reverse() : out;
  }, [props.rows, props.columns, sort]);

  const toggle = (key: string) => setSort((s) => (s?.key === key && s.dir === 'ascending' ? { key, dir: 'descending' } : { key, dir: 'ascending' }));

  return (
    <div class="table-wrap">
      <table data-testid={props.testId}>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" key={c.key} class={c.numeric ? 'num' : undefined} aria-sort={sort?.key === c.key ? sort.dir : c.noSort ? undefined : 'none'}>
                {c.noSort ? (
                  c.label
                ) : (
                  <button type="button" class="sort" onClick={() => toggle(c.key)}>
                    {c.label}
                    <span aria-hidden="true" class="sort-mark">
                      {sort?.key === c.key ? (sort.dir === 'ascending' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length} class="empty">
                {props.empty ?? 'Nothing yet.'}
              </td>
            </tr>
          ) : (
            sorted.map((row) => (
              <tr key={props.rowKey(row)}>
                {props.columns.map((c) => (
                  <td key={c.key} class={c.numeric ? 'num' : undefined}>
                    {c.render ? c.render(row) : String((row as Record<string, unknown>)[c.key] ?? '')}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
