/**
 * Reports (DESIGN section 12): one UTC day's report per publisher (`GET /v1/reports/daily`),
 * sortable, downloadable as CSV (built in the page, so nothing but the API is called), and the
 * day's report.daily events can be sent again.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { toCsv } from '../csv.js';
import { fmt, utcToday } from '../format.js';
import { useLoad } from '../hooks.js';
import { SortableTable } from '../table.js';

interface Report {
  date: string;
  publisher_id: string;
  currency: string;
  requests: number;
  imps: number;
  bids: number;
  wins: number;
  impressions: number;
  fill_rate: number;
  win_rate: number;
  revenue_gross: number;
  revenue_net: number;
  ecpm: number;
}

/** CSV columns: the report.daily fields, in the event's order. */
const COLUMNS = ['date', 'publisher_id', 'currency', 'requests', 'imps', 'bids', 'wins', 'impressions', 'fill_rate', 'win_rate', 'revenue_gross', 'revenue_net', 'ecpm'] as const;

/** Reports page (DESIGN section 12): the daily report of a chosen UTC day, as a table and a CSV download, and a resend. */
export function ReportsPage() {
  const [date, setDate] = useState(utcToday());
  const [dateError, setDateError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const reports = useLoad(() => api<{ date: string; reports: Report[] }>('GET', `/v1/reports/daily?date=${encodeURIComponent(date)}`), [date]);
  const rows = reports.data?.reports ?? [];

  const download = () => {
    const blob = new Blob([toCsv(COLUMNS, rows as unknown as Array<Record<string, unknown>>)], { type: 'text/csv;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = `adx-report-${date}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  const deliver = async () => {
    const answer = await api<{ events: number; messages: number }>('POST', '/v1/reports/daily/deliver', { date });
    setMessage(`report.daily for ${date}: ${answer.events} reports, ${answer.messages} webhook messages queued.`);
  };

  return (
    <>
      <h1>Reports</h1>
      <div class="toolbar">
        <div class="field inline">
          <label for="report-date">Day (UTC)</label>
          <input
            id="report-date"
            type="date"
            value={date}
            aria-invalid={dateError ? 'true' : undefined}
            aria-describedby={dateError ? 'report-date-error' : undefined}
            onChange={(e) => {
              const value = (e.currentTarget as HTMLInputElement).value;
              if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
                setDateError(null);
                setDate(value);
              } else setDateError('must be a day, YYYY-MM-DD');
            }}
          />
          {dateError ? (
            <p id="report-date-error" class="field-error" role="alert">
              Day {dateError}
            </p>
          ) : null}
        </div>
        <button type="button" onClick={download} disabled={rows.length === 0}>
          Download CSV
        </button>
        <button type="button" class="secondary" onClick={() => void deliver()}>
          Send report.daily again
        </button>
      </div>
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      {reports.error ? <p class="form-error">{reports.error}</p> : null}
      <SortableTable
        caption={`Daily report, ${date} (UTC)`}
        testId="reports-table"
        rows={rows}
        rowKey={(r) => r.publisher_id}
        initialSort={{ key: 'revenue_net', dir: 'descending' }}
        empty="No activity that day."
        columns={[
          { key: 'publisher_id', label: 'Publisher', render: (r) => <code>{r.publisher_id}</code> },
          { key: 'requests', label: 'Requests', numeric: true, render: (r) => fmt.int(r.requests) },
          { key: 'imps', label: 'Imps', numeric: true, render: (r) => fmt.int(r.imps) },
          { key: 'bids', label: 'Bids', numeric: true, render: (r) => fmt.int(r.bids) },
          { key: 'wins', label: 'Wins', numeric: true, render: (r) => fmt.int(r.wins) },
          { key: 'impressions', label: 'Impressions', numeric: true, render: (r) => fmt.int(r.impressions) },
          { key: 'fill_rate', label: 'Fill rate', numeric: true, render: (r) => fmt.pct(r.fill_rate) },
          { key: 'win_rate', label: 'Win rate', numeric: true, render: (r) => fmt.pct(r.win_rate) },
          { key: 'revenue_gross', label: 'Gross', numeric: true, render: (r) => fmt.usd(r.revenue_gross) },
          { key: 'revenue_net', label: 'Net', numeric: true, render: (r) => fmt.usd(r.revenue_net) },
          { key: 'ecpm', label: 'eCPM', numeric: true, render: (r) => fmt.usd(r.ecpm) },
        ]}
      />
    </>
  );
}
