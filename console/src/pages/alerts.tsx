/**
 * Alerts (DESIGN section 12): the alert rules with their current state (idle, triggered,
 * resolved) and episode id; create and delete. The create form comes from the API's body schema.
 */
import { useState } from 'preact/hooks';
import { api, bodySchema } from '../api.js';
import { useApiDoc } from '../doc.js';
import { fieldsOf } from '../fields.js';
import { SchemaForm } from '../form.js';
import { fmt } from '../format.js';
import { useLoad } from '../hooks.js';
import { SortableTable } from '../table.js';

interface Rule {
  id: string;
  metric: 'revenue' | 'fill_rate';
  comparator: 'above' | 'below';
  threshold: number;
  window_minutes: number;
  publisher_id: string | null;
  state: 'idle' | 'triggered' | 'resolved';
  alert_id: string | null;
  created_at: string;
}

/** Alerts page (DESIGN section 12): alert rules on revenue or fill rate, created and deleted through `/v1/alert-rules`. */
export function AlertsPage() {
  const doc = useApiDoc();
  const rules = useLoad(() => api<{ data: Rule[] }>('GET', '/v1/alert-rules'), [], 15_000);
  const [creating, setCreating] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const remove = async (rule: Rule) => {
    await api('DELETE', `/v1/alert-rules/${encodeURIComponent(rule.id)}`);
    setConfirmDelete(null);
    setMessage(`Rule ${rule.id} deleted.`);
    await rules.reload();
  };

  return (
    <>
      <h1>Alerts</h1>
      <p class="hint">A rule fires alert.threshold once when it starts to hold (triggered) and once when it stops (resolved). Revenue thresholds are USD amounts; fill-rate thresholds are rates from 0 to 1.</p>
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      {rules.error ? <p class="form-error">{rules.error}</p> : null}
      <SortableTable
        caption="Alert rules"
        testId="alerts-table"
        rows={rules.data?.data ?? []}
        rowKey={(r) => r.id}
        initialSort={{ key: 'created_at', dir: 'ascending' }}
        columns={[
          { key: 'id', label: 'Rule', render: (r) => <code>{r.id}</code> },
          { key: 'metric', label: 'Metric', render: (r) => (r.metric === 'fill_rate' ? 'fill rate' : 'revenue') },
          { key: 'comparator', label: 'When', render: (r) => `${r.comparator} ${r.metric === 'revenue' ? fmt.usd(r.threshold) : fmt.pct(r.threshold)}` },
          { key: 'window_minutes', label: 'Window (min)', numeric: true },
          { key: 'publisher_id', label: 'Scope', render: (r) => r.publisher_id ?? 'whole exchange' },
          { key: 'state', label: 'State', render: (r) => <span class={`badge state-${r.state}`}>{r.state}</span> },
          { key: 'created_at', label: 'Created', render: (r) => fmt.time(r.created_at) },
          {
            key: 'actions',
            label: 'Actions',
            noSort: true,
            render: (r) =>
              confirmDelete === r.id ? (
                <span class="row-actions">
                  <button type="button" class="danger" aria-label={`Confirm delete of rule ${r.id}`} onClick={() => void remove(r)}>
                    Confirm delete
                  </button>
                  <button type="button" class="secondary" aria-label="Keep the rule" onClick={() => setConfirmDelete(null)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button type="button" class="secondary" aria-label={`Delete rule ${r.id}`} onClick={() => setConfirmDelete(r.id)}>
                  Delete
                </button>
              ),
          },
        ]}
      />
      <div class="actions">
        <button type="button" onClick={() => setCreating(true)} disabled={creating}>
          Add alert rule
        </button>
      </div>
      {creating ? (
        <section aria-labelledby="rule-create-title" class="panel">
          <h2 id="rule-create-title">Add an alert rule</h2>
          <SchemaForm
            title="Add an alert rule"
            fields={fieldsOf(bodySchema(doc, 'POST', '/v1/alert-rules'), { order: ['metric', 'comparator', 'threshold', 'window_minutes', 'publisher_id'] })}
            submitLabel="Create rule"
            onCancel={() => setCreating(false)}
            onSubmit={async (body) => {
              const created = await api<Rule>('POST', '/v1/alert-rules', body);
              setCreating(false);
              setMessage(`Rule ${created.id} created.`);
              await rules.reload();
            }}
          />
        </section>
      ) : null}
    </>
  );
}
