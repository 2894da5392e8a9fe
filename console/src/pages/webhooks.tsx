/**
 * Webhooks (DESIGN section 12): endpoints with their delivered, failed and pending message counts;
 * create (the signing secret shown once, with a copy button); per endpoint: send a test, rotate the
 * secret (shown once), recover failures since a time, enable or disable, and the delivery log with
 * every attempt and a replay button per message.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, bodySchema } from '../api.js';
import { useApiDoc } from '../doc.js';
import { fieldsOf } from '../fields.js';
import { SchemaForm } from '../form.js';
import { fmt } from '../format.js';
import { useLoad } from '../hooks.js';
import { SecretOnce } from '../secret.js';
import { SortableTable } from '../table.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  publisher_id: string | null;
  enabled: boolean;
  description: string | null;
  disabled_reason: string | null;
}

interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
}

interface Delivery {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  last_error: string | null;
  attempt_log: Attempt[];
}

type Row = Endpoint & { delivered: number; failed: number; pending: number };

/** Endpoints with their message counts by status (`GET /v1/stats/webhooks`, one grouped count). */
async function loadEndpoints(): Promise<Row[]> {
  const [{ data }, counts] = await Promise.all([
    api<{ data: Endpoint[] }>('GET', '/v1/webhook-endpoints'),
    api<{ data: Array<{ endpoint_id: string; pending: number; delivered: number; failed: number }> }>('GET', '/v1/stats/webhooks'),
  ]);
  const byId = new Map(counts.data.map((c) => [c.endpoint_id, c]));
  return data.map((ep) => ({ ...ep, delivered: byId.get(ep.id)?.delivered ?? 0, failed: byId.get(ep.id)?.failed ?? 0, pending: byId.get(ep.id)?.pending ?? 0 }));
}

const countText = (n: number) => fmt.int(n);

function DeliveryLog(props: { endpoint: Endpoint; onChange: () => void }) {
  const base = `/v1/webhook-endpoints/${encodeURIComponent(props.endpoint.id)}`;
  const log = useLoad(() => api<{ data: Delivery[] }>('GET', `${base}/deliveries?limit=100`), [props.endpoint.id], 10_000);
  const [message, setMessage] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [since, setSince] = useState(() => new Date(Date.now() - 86_400_000).toISOString().slice(0, 19) + 'Z');
  const [sinceError, setSinceError] = useState<string | null>(null);

  const run = async (what: () => Promise<string>) => {
    try {
      setMessage(await what());
    } catch (e) {
      setMessage(e instanceof ApiError ? `Failed: ${e.message}` : String(e));
    }
    await log.reload();
    props.onChange();
    // A queued message is attempted within a moment: read the log again to show how it went.
    for (const ms of [1000, 3000]) {
      setTimeout(() => {
        void log.reload();
        props.onChange();
      }, ms);
    }
  };

  return (
    <section aria-labelledby="endpoint-detail-title" class="panel" data-testid="endpoint-detail">
      <h2 id="endpoint-detail-title">Endpoint {props.endpoint.url}</h2>
      {secret ? <SecretOnce label={`New signing secret of ${props.endpoint.id}`} value={secret} note="shown only this once. The previous secret keeps signing alongside it for 24 hours." onDismiss={() => setSecret(null)} /> : null}
      <div class="toolbar">
        <button type="button" onClick={() => void run(async () => `Test event queued (${(await api<{ message_id: string }>('POST', `${base}/test`)).message_id}).`)}>
          Send test event
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void run(async () => {
              setSecret((await api<{ secret: string }>('POST', `${base}/rotate-secret`)).secret);
              return 'Secret rotated.';
            })
          }
        >
          Rotate secret
        </button>
        <button type="button" class="secondary" onClick={() => void run(async () => (await api('PATCH', base, { enabled: !props.endpoint.enabled }), `Endpoint ${props.endpoint.enabled ? 'disabled' : 'enabled'}.`))}>
          {props.endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
        </button>
      </div>
      <form
        class="toolbar"
        aria-label="Recover failed deliveries"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (Number.isNaN(Date.parse(since)) || !/(Z|[+-]\d{2}:\d{2})$/.test(since.trim())) {
            setSinceError('must be an ISO 8601 date-time with a time zone, e.g. 2026-01-01T00:00:00Z');
            return;
          }
          setSinceError(null);
          void run(async () => `${(await api<{ recovered: number }>('POST', `${base}/recover`, { since: since.trim() })).recovered} failed messages sent again.`);
        }}
      >
        <div class="field inline">
          <label for="recover-since">Failed since</label>
          <input id="recover-since" class="mono" value={since} aria-invalid={sinceError ? 'true' : undefined} aria-describedby={sinceError ? 'recover-since-error' : undefined} onInput={(e) => setSince((e.currentTarget as HTMLInputElement).value)} />
          {sinceError ? (
            <p id="recover-since-error" class="field-error" role="alert">
              Failed since {sinceError}
            </p>
          ) : null}
        </div>
        <button type="submit" class="secondary">
          Recover
        </button>
      </form>
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      <SortableTable
        caption="Delivery log (newest 100 messages)"
        testId="delivery-log"
        rows={log.data?.data ?? []}
        rowKey={(d) => d.id}
        initialSort={{ key: 'created_at', dir: 'descending' }}
        empty="No messages yet."
        columns={[
          { key: 'created_at', label: 'Stored', render: (d) => fmt.time(d.created_at) },
          { key: 'event', label: 'Event' },
          { key: 'status', label: 'Status', render: (d) => <span class={`badge status-${d.status}`}>{d.status}</span> },
          {
            key: 'attempts',
            label: 'Attempts',
            numeric: true,
            render: (d) => (
              <details>
                <summary aria-label={`${d.attempts} attempts of ${d.id}`}>{d.attempts}</summary>
                <ol class="attempts" data-testid={`attempts-${d.id}`}>
                  {d.attempt_log.map((a) => (
                    <li key={a.attempt}>
                      #{a.attempt} {fmt.time(a.started_at)}: {a.status_code ?? 'no answer'} in {fmt.ms(a.duration_ms)}
                      {a.error ? ` — ${a.error}` : ''}
                      {a.next_attempt_at ? `; next ${fmt.time(a.next_attempt_at)}` : ''}
                    </li>
                  ))}
                </ol>
              </details>
            ),
          },
          { key: 'last_error', label: 'Last error', render: (d) => d.last_error ?? '' },
          { key: 'id', label: 'Message', render: (d) => <code>{d.id}</code> },
          {
            key: 'actions',
            label: 'Actions',
            noSort: true,
            render: (d) => (
              <button
                type="button"
                class="secondary"
                aria-label={`Replay ${d.id}`}
                onClick={() => void run(async () => (await api('POST', `${base}/deliveries/${encodeURIComponent(d.id)}/replay`), `Message ${d.id} queued again.`))}
              >
                Replay
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}

/** Webhooks page (DESIGN section 12): endpoints with delivery counts, the delivery log with every attempt, replay and recover. */
export function WebhooksPage() {
  const doc = useApiDoc();
  const endpoints = useLoad(loadEndpoints, [], 15_000);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const rows = endpoints.data ?? [];
  const selected = rows.find((r) => r.id === selectedId);

  return (
    <>
      <h1>Webhooks</h1>
      <p class="hint">Messages stored for each endpoint, by status: delivered (2xx), failed (attempts exhausted: out again only by replay or recover), pending (waiting for an attempt).</p>
      {secret ? <SecretOnce label={secret.label} value={secret.value} onDismiss={() => setSecret(null)} /> : null}
      {endpoints.error ? <p class="form-error">{endpoints.error}</p> : null}
      <SortableTable
        caption="Webhook endpoints"
        testId="endpoints-table"
        rows={rows}
        rowKey={(r) => r.id}
        initialSort={{ key: 'url', dir: 'ascending' }}
        columns={[
          { key: 'url', label: 'URL', render: (r) => <span class="mono">{r.url}</span> },
          { key: 'events', label: 'Events', sortValue: (r) => r.events.join(','), render: (r) => (r.events.length === 0 ? 'all' : r.events.join(', ')) },
          { key: 'publisher_id', label: 'Scope', render: (r) => r.publisher_id ?? 'all publishers' },
          { key: 'enabled', label: 'Status', render: (r) => (r.enabled ? 'enabled' : `disabled${r.disabled_reason ? ` (${r.disabled_reason})` : ''}`) },
          { key: 'delivered', label: 'Delivered', numeric: true, render: (r) => countText(r.delivered) },
          { key: 'failed', label: 'Failed', numeric: true, render: (r) => countText(r.failed) },
          { key: 'pending', label: 'Pending', numeric: true, render: (r) => countText(r.pending) },
          {
            key: 'actions',
            label: 'Actions',
            noSort: true,
            render: (r) => (
              <button type="button" class="secondary" aria-label={`Deliveries of ${r.url}`} aria-pressed={selectedId === r.id} onClick={() => setSelectedId(r.id)}>
                Deliveries
              </button>
            ),
          },
        ]}
      />
      <div class="actions">
        <button type="button" onClick={() => setCreating(true)} disabled={creating}>
          Add endpoint
        </button>
      </div>
      {creating ? (
        <section aria-labelledby="endpoint-create-title" class="panel">
          <h2 id="endpoint-create-title">Add a webhook endpoint</h2>
          <SchemaForm
            title="Add a webhook endpoint"
            fields={fieldsOf(bodySchema(doc, 'POST', '/v1/webhook-endpoints'), { order: ['url', 'events', 'publisher_id', 'description', 'api_key', 'enabled'], labels: { api_key: 'API key (generated when empty)' } })}
            initial={{ enabled: true }}
            submitLabel="Create endpoint"
            onCancel={() => setCreating(false)}
            onSubmit={async (body) => {
              const created = await api<Endpoint & { secret: string }>('POST', '/v1/webhook-endpoints', body);
              setCreating(false);
              setSecret({ label: `Signing secret of ${created.url}`, value: created.secret });
              setSelectedId(created.id);
              await endpoints.reload();
            }}
          />
        </section>
      ) : null}
      {selected ? <DeliveryLog key={selected.id} endpoint={selected} onChange={() => void endpoints.reload()} /> : null}
    </>
  );
}
