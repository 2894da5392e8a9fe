/**
 * Overview (DESIGN section 12): the exchange's requests/s, fill rate, revenue, eCPM and latency
 * p50/p99 over the last hour, day or week, from `/v1/stats/series`, refreshed every few seconds
 * while the page is open and the tab visible; optionally of one publisher.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Chart } from '../chart.js';
import { fmt, ratio } from '../format.js';
import { useLoad } from '../hooks.js';
import { perSecond, RANGES, readSeries, xs, type ExchangePoint, type RangeName } from '../series.js';

/** How often the overview reads the series again while open, ms. */
const REFRESH_MS = 5000;

/** Overview page (DESIGN section 12): totals and charts of `/v1/stats/series` for a range and publisher, refreshed every 5 s. */
export function OverviewPage() {
  const [range, setRange] = useState<RangeName>('hour');
  const [publisherId, setPublisherId] = useState('');
  const publishers = useLoad(() => api<{ data: Array<{ id: string; name: string }> }>('GET', '/v1/publishers'), []);
  const series = useLoad(() => readSeries<ExchangePoint>(RANGES[range], { publisher_id: publisherId || undefined }), [range, publisherId], REFRESH_MS);
  const points = series.data?.points ?? [];
  const x = xs(points);
  const step = series.data?.step ?? RANGES[range].step;
  const sum = (f: (p: ExchangePoint) => number) => points.reduce((acc, p) => acc + f(p), 0);
  const imps = sum((p) => p.imps);
  const impressions = sum((p) => p.impressions);
  const revenueNet = sum((p) => p.revenue_net);

  return (
    <>
      <h1>Overview</h1>
      <div class="toolbar">
        <fieldset class="segmented">
          <legend>Time range</legend>
          {(Object.keys(RANGES) as RangeName[]).map((name) => (
            <span key={name} class="choice">
              <input type="radio" id={`range-${name}`} name="range" value={name} checked={range === name} onChange={() => setRange(name)} />
              <label for={`range-${name}`}>{RANGES[name].label}</label>
            </span>
          ))}
        </fieldset>
        <div class="field inline">
          <label for="overview-publisher">Publisher</label>
          <select id="overview-publisher" value={publisherId} onChange={(e) => setPublisherId((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">All publishers</option>
            {(publishers.data?.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
        </div>
        <p class="hint" data-testid="overview-updated">
          {series.error ? <span class="form-error">Refresh failed: {series.error}</span> : series.data ? `Refreshes every ${REFRESH_MS / 1000} s; buckets of one ${step}, UTC.` : 'Loading…'}
        </p>
      </div>
      <ul class="tiles" aria-label="Totals over the range">
        <li>
          <span class="tile-label">Requests</span> <span class="tile-value">{fmt.int(sum((p) => p.requests))}</span>
        </li>
        <li>
          <span class="tile-label">Fill rate</span> <span class="tile-value">{fmt.pct(ratio(sum((p) => p.imps_filled), imps))}</span>
        </li>
        <li>
          <span class="tile-label">Net revenue</span> <span class="tile-value">{fmt.usd(revenueNet)}</span>
        </li>
        <li>
          <span class="tile-label">eCPM</span> <span class="tile-value">{fmt.usd(impressions === 0 ? 0 : (revenueNet * 1000) / impressions)}</span>
        </li>
        <li>
          <span class="tile-label">Wins</span> <span class="tile-value">{fmt.int(sum((p) => p.wins))}</span>
        </li>
      </ul>
      <div class="charts">
        <Chart name="requests" title="Bid requests per second" x={x} format={fmt.dec} series={[{ label: 'requests/s', color: '#1f5fbf', values: perSecond(points, (p: ExchangePoint) => p.requests, step) }]} />
        <Chart name="fill_rate" title="Fill rate (imps that got a bid)" x={x} format={fmt.pct} series={[{ label: 'fill rate', color: '#0a7d48', values: points.map((p) => (p.imps === 0 ? null : p.fill_rate)) }]} />
        <Chart
          name="revenue"
          title={`Revenue per ${step} (USD)`}
          x={x}
          format={fmt.usd}
          series={[
            { label: 'net', color: '#7a3fb0', values: points.map((p) => p.revenue_net) },
            { label: 'gross', color: '#b0608a', dash: [6, 4], values: points.map((p) => p.revenue_gross) },
          ]}
        />
        <Chart name="ecpm" title="eCPM (net, USD per 1000 impressions)" x={x} format={fmt.usd} series={[{ label: 'eCPM', color: '#a15c00', values: points.map((p) => (p.impressions === 0 ? null : p.ecpm)) }]} />
        <Chart
          name="latency"
          title="Bid request latency (ms)"
          x={x}
          format={fmt.dec}
          series={[
            { label: 'p50', color: '#1f5fbf', values: points.map((p) => (p.requests === 0 ? null : p.latency_p50_ms)) },
            { label: 'p99', color: '#b3261e', dash: [6, 4], values: points.map((p) => (p.requests === 0 ? null : p.latency_p99_ms)) },
          ]}
        />
      </div>
    </>
  );
}
