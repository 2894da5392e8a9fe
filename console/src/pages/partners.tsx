/**
 * Demand partners (DESIGN section 12): each partner's calls, bid rate (bids / calls), timeouts,
 * errors, privacy blocks, win rate (wins / bids) and latency today (UTC), from the partner series;
 * the selected partner's charts over the last hour; create, edit, enable and disable. Forms come
 * from the API's own body schemas.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Chart } from '../chart.js';
import { useApiDoc } from '../doc.js';
import { bodySchema } from '../api.js';
import { fieldsOf } from '../fields.js';
import { SchemaForm } from '../form.js';
import { fmt, ratio } from '../format.js';
import { useLoad } from '../hooks.js';
import { RANGES, readSeries, xs, type PartnerPoint } from '../series.js';
import { SortableTable } from '../table.js';

interface Partner {
  id: string;
  name: string;
  endpoint: string;
  adapter: string;
  timeout_ms: number;
  enabled: boolean;
  [field: string]: unknown;
}

interface Today {
  calls: number;
  bids: number;
  timeouts: number;
  errors: number;
  wins: number;
  privacy_blocked: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

type Row = Partner & { today: Today };

const ORDER = ['name', 'endpoint', 'adapter', 'timeout_ms', 'currency', 'qps_limit', 'gzip', 'enabled'];

async function loadPartners(): Promise<Row[]> {
  const { data } = await api<{ data: Partner[] }>('GET', '/v1/demand-partners');
  const now = Date.now();
  const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
  return Promise.all(
    data.map(async (partner) => {
      const series = await readSeries<PartnerPoint>({ spanMs: now - dayStart + 1, step: 'day' }, { partner_id: partner.id }, now);
      const p = series.points[series.points.length - 1];
      const today: Today = p ?? { calls: 0, bids: 0, timeouts: 0, errors: 0, wins: 0, privacy_blocked: 0, latency_p50_ms: 0, latency_p99_ms: 0 };
      return { ...partner, today };
    }),
  );
}

function PartnerCharts(props: { partner: Partner }) {
  const series = useLoad(() => readSeries<PartnerPoint>(RANGES.hour, { partner_id: props.partner.id }), [props.partner.id], 10_000);
  const points = series.data?.points ?? [];
  const x = xs(points);
  return (
    <section aria-labelledby="partner-charts-title">
      <h2 id="partner-charts-title">
        {props.partner.name}: last hour, per minute
      </h2>
      <div class="charts">
        <Chart
          name="partner_calls"
          title="Calls and bids"
          x={x}
          format={fmt.dec}
          series={[
            { label: 'calls', color: '#1f5fbf', values: points.map((p) => p.calls) },
            { label: 'bids', color: '#0a7d48', values: points.map((p) => p.bids) },
            { label: 'wins', color: '#7a3fb0', dash: [6, 4], values: points.map((p) => p.wins) },
          ]}
        />
        <Chart
          name="partner_failures"
          title="Timeouts, errors and privacy blocks"
          x={x}
          format={fmt.dec}
          series={[
            { label: 'timeouts', color: '#a15c00', values: points.map((p) => p.timeouts) },
            { label: 'errors', color: '#b3261e', values: points.map((p) => p.errors) },
            { label: 'privacy blocks', color: '#555', dash: [6, 4], values: points.map((p) => p.privacy_blocked) },
          ]}
        />
        <Chart
          name="partner_latency"
          title="Call latency (ms)"
          x={x}
          format={fmt.dec}
          series={[
            { label: 'p50', color: '#1f5fbf', values: points.map((p) => (p.calls === 0 ? null : p.latency_p50_ms)) },
            { label: 'p99', color: '#b3261e', dash: [6, 4], values: points.map((p) => (p.calls === 0 ? null : p.latency_p99_ms)) },
          ]}
        />
      </div>
    </section>
  );
}

/** Demand partners page (DESIGN section 12): the partner table with per-partner series, create and edit forms. */
export function PartnersPage() {
  const doc = useApiDoc();
  const partners = useLoad(loadPartners, [], 15_000);
  const [mode, setMode] = useState<{ kind: 'none' } | { kind: 'create' } | { kind: 'edit'; partner: Partner }>({ kind: 'none' });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const rows = partners.data ?? [];
  const selected = rows.find((r) => r.id === selectedId) ?? rows[0];

  const toggle = async (p: Partner) => {
    await api('PATCH', `/v1/demand-partners/${encodeURIComponent(p.id)}`, { enabled: !p.enabled });
    setMessage(`${p.name} ${p.enabled ? 'disabled' : 'enabled'}.`);
    await partners.reload();
  };

  return (
    <>
      <h1>Demand partners</h1>
      <p class="hint">Figures are for today (UTC) across every node. Bid rate is bids per call (a call may bid on several imps); win rate = wins / bids.</p>
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      {partners.error ? <p class="form-error">{partners.error}</p> : null}
      <SortableTable
        caption="Demand partners"
        testId="partners-table"
        rows={rows}
        rowKey={(r) => r.id}
        initialSort={{ key: 'name', dir: 'ascending' }}
        columns={[
          { key: 'name', label: 'Name', render: (r) => <span title={r.id}>{r.name}</span> },
          { key: 'enabled', label: 'Status', render: (r) => (r.enabled ? 'enabled' : 'disabled') },
          { key: 'calls', label: 'Calls', numeric: true, sortValue: (r) => r.today.calls, render: (r) => fmt.int(r.today.calls) },
          { key: 'bid_rate', label: 'Bids per call', numeric: true, sortValue: (r) => ratio(r.today.bids, r.today.calls), render: (r) => fmt.dec(ratio(r.today.bids, r.today.calls)) },
          { key: 'timeouts', label: 'Timeouts', numeric: true, sortValue: (r) => r.today.timeouts, render: (r) => fmt.int(r.today.timeouts) },
          { key: 'errors', label: 'Errors', numeric: true, sortValue: (r) => r.today.errors, render: (r) => fmt.int(r.today.errors) },
          { key: 'privacy_blocked', label: 'Privacy blocks', numeric: true, sortValue: (r) => r.today.privacy_blocked, render: (r) => fmt.int(r.today.privacy_blocked) },
          { key: 'win_rate', label: 'Win rate', numeric: true, sortValue: (r) => ratio(r.today.wins, r.today.bids), render: (r) => fmt.pct(ratio(r.today.wins, r.today.bids)) },
          { key: 'p50', label: 'p50', numeric: true, sortValue: (r) => r.today.latency_p50_ms, render: (r) => fmt.ms(r.today.latency_p50_ms) },
          { key: 'p99', label: 'p99', numeric: true, sortValue: (r) => r.today.latency_p99_ms, render: (r) => fmt.ms(r.today.latency_p99_ms) },
          {
            key: 'actions',
            label: 'Actions',
            noSort: true,
            render: (r) => (
              <span class="row-actions">
                <button type="button" class="secondary" aria-label={`Charts of ${r.name}`} aria-pressed={selected?.id === r.id} onClick={() => setSelectedId(r.id)}>
                  Charts
                </button>
                <button type="button" class="secondary" aria-label={`Edit ${r.name}`} onClick={() => setMode({ kind: 'edit', partner: r })}>
                  Edit
                </button>
                <button type="button" class="secondary" aria-label={`${r.enabled ? 'Disable' : 'Enable'} ${r.name}`} onClick={() => void toggle(r)}>
                  {r.enabled ? 'Disable' : 'Enable'}
                </button>
              </span>
            ),
          },
        ]}
      />
      <div class="actions">
        <button type="button" onClick={() => setMode({ kind: 'create' })} disabled={mode.kind === 'create'}>
          Add demand partner
        </button>
      </div>
      {mode.kind === 'create' ? (
        <section aria-labelledby="partner-create-title" class="panel">
          <h2 id="partner-create-title">Add a demand partner</h2>
          <SchemaForm
            title="Add a demand partner"
            testId="partner-create-form"
            fields={fieldsOf(bodySchema(doc, 'POST', '/v1/demand-partners'), { order: ORDER })}
            initial={{ enabled: true, adapter: 'openrtb25' }}
            submitLabel="Create partner"
            onCancel={() => setMode({ kind: 'none' })}
            onSubmit={async (body) => {
              const created = await api<Partner>('POST', '/v1/demand-partners', body);
              setMode({ kind: 'none' });
              setMessage(`Demand partner ${created.name} created (${created.id}).`);
              setSelectedId(created.id);
              await partners.reload();
            }}
          />
        </section>
      ) : null}
      {mode.kind === 'edit' ? (
        <section aria-labelledby="partner-edit-title" class="panel">
          <h2 id="partner-edit-title">Edit {mode.partner.name}</h2>
          <SchemaForm
            key={mode.partner.id}
            title={`Edit ${mode.partner.name}`}
            fields={fieldsOf(bodySchema(doc, 'PATCH', '/v1/demand-partners/{id}'), { order: ORDER })}
            initial={mode.partner}
            changedOnly
            submitLabel="Save changes"
            onCancel={() => setMode({ kind: 'none' })}
            onSubmit={async (body) => {
              await api('PATCH', `/v1/demand-partners/${encodeURIComponent(mode.partner.id)}`, body);
              setMode({ kind: 'none' });
              setMessage(`${mode.partner.name} saved.`);
              await partners.reload();
            }}
          />
        </section>
      ) : null}
      {selected ? <PartnerCharts partner={selected} /> : null}
    </>
  );
}
