/**
 * Publishers (DESIGN section 12): every publisher with browser access, domains, auction type,
 * reserve, and today's (UTC) requests, fill rate and net revenue from the daily report; create
 * (the API key shown once, with a copy button), edit, and rotate keys (the new key shown once; the
 * old ones keep working through the grace period the API answers).
 */
import { useState } from 'preact/hooks';
import { api, bodySchema } from '../api.js';
import { useApiDoc } from '../doc.js';
import { fieldsOf } from '../fields.js';
import { SchemaForm } from '../form.js';
import { fmt, utcToday } from '../format.js';
import { useLoad } from '../hooks.js';
import { SecretOnce } from '../secret.js';
import { SortableTable } from '../table.js';

interface Publisher {
  id: string;
  name: string;
  domain: string | null;
  domains: string[];
  browser_access: boolean;
  auction_type: 1 | 2;
  reserve_price: number;
  [field: string]: unknown;
}

interface DailyReport {
  publisher_id: string;
  requests: number;
  imps: number;
  fill_rate: number;
  revenue_net: number;
}

type Row = Publisher & { report: DailyReport | undefined };

const ORDER = ['name', 'domain', 'domains', 'browser_access', 'auction_type', 'reserve_price'];
const LABELS = { auction_type: 'Auction type (1 first price, 2 second price)', reserve_price: 'Reserve price (CPM, USD)', domains: 'Browser domains' };

async function loadPublishers(): Promise<Row[]> {
  const [{ data }, { reports }] = await Promise.all([
    api<{ data: Publisher[] }>('GET', '/v1/publishers'),
    api<{ reports: DailyReport[] }>('GET', `/v1/reports/daily?date=${utcToday()}`),
  ]);
  const byId = new Map(reports.map((r) => [r.publisher_id, r]));
  return data.map((p) => ({ ...p, report: byId.get(p.id) }));
}

/** Publishers page (DESIGN section 12): the publisher table, create/edit forms, key rotation; a new API key is shown once. */
export function PublishersPage() {
  const doc = useApiDoc();
  const publishers = useLoad(loadPublishers, [], 15_000);
  const [mode, setMode] = useState<{ kind: 'none' } | { kind: 'create' } | { kind: 'edit'; publisher: Publisher }>({ kind: 'none' });
  const [secret, setSecret] = useState<{ label: string; value: string; note?: string } | null>(null);
  const [confirmRotate, setConfirmRotate] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const rotate = async (p: Publisher) => {
    const answer = await api<{ api_key: string; previous_keys_expire_at: string }>('POST', `/v1/publishers/${encodeURIComponent(p.id)}/keys`);
    setConfirmRotate(null);
    setSecret({ label: `New API key of ${p.name}`, value: answer.api_key, note: `shown only this once. Earlier keys stop working at ${fmt.time(answer.previous_keys_expire_at)}.` });
  };

  return (
    <>
      <h1>Publishers</h1>
      <p class="hint">Requests, fill rate and net revenue are today's (UTC), counts not yet flushed included.</p>
      {secret ? <SecretOnce label={secret.label} value={secret.value} note={secret.note} onDismiss={() => setSecret(null)} /> : null}
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      {publishers.error ? <p class="form-error">{publishers.error}</p> : null}
      <SortableTable
        caption="Publishers"
        testId="publishers-table"
        rows={publishers.data ?? []}
        rowKey={(r) => r.id}
        initialSort={{ key: 'name', dir: 'ascending' }}
        columns={[
          { key: 'name', label: 'Name' },
          { key: 'id', label: 'ID', render: (r) => <code>{r.id}</code> },
          { key: 'browser_access', label: 'Browser access', render: (r) => (r.browser_access ? `yes (${r.domains.join(', ') || 'no domains'})` : 'no') },
          { key: 'auction_type', label: 'Auction', render: (r) => (r.auction_type === 2 ? 'second price' : 'first price') },
          { key: 'reserve_price', label: 'Reserve', numeric: true, render: (r) => fmt.usd(r.reserve_price) },
          { key: 'requests', label: 'Requests', numeric: true, sortValue: (r) => r.report?.requests ?? 0, render: (r) => fmt.int(r.report?.requests ?? 0) },
          { key: 'fill_rate', label: 'Fill rate', numeric: true, sortValue: (r) => r.report?.fill_rate ?? 0, render: (r) => fmt.pct(r.report?.fill_rate ?? 0) },
          { key: 'revenue_net', label: 'Net revenue', numeric: true, sortValue: (r) => r.report?.revenue_net ?? 0, render: (r) => fmt.usd(r.report?.revenue_net ?? 0) },
          {
            key: 'actions',
            label: 'Actions',
            noSort: true,
            render: (r) => (
              <span class="row-actions">
                <button type="button" class="secondary" aria-label={`Edit ${r.name}`} onClick={() => setMode({ kind: 'edit', publisher: r })}>
                  Edit
                </button>
                {confirmRotate === r.id ? (
                  <>
                    <button type="button" class="danger" aria-label={`Confirm new key for ${r.name}`} onClick={() => void rotate(r)}>
                      Confirm new key
                    </button>
                    <button type="button" class="secondary" aria-label="Keep the current key" onClick={() => setConfirmRotate(null)}>
                      Keep
                    </button>
                  </>
                ) : (
                  <button type="button" class="secondary" aria-label={`Rotate key of ${r.name}`} onClick={() => setConfirmRotate(r.id)}>
                    Rotate key
                  </button>
                )}
              </span>
            ),
          },
        ]}
      />
      <div class="actions">
        <button type="button" onClick={() => setMode({ kind: 'create' })} disabled={mode.kind === 'create'}>
          Add publisher
        </button>
      </div>
      {mode.kind === 'create' ? (
        <section aria-labelledby="publisher-create-title" class="panel">
          <h2 id="publisher-create-title">Add a publisher</h2>
          <SchemaForm
            title="Add a publisher"
            testId="publisher-create-form"
            fields={fieldsOf(bodySchema(doc, 'POST', '/v1/publishers'), { order: ORDER, labels: LABELS })}
            submitLabel="Create publisher"
            onCancel={() => setMode({ kind: 'none' })}
            onSubmit={async (body) => {
              const created = await api<Publisher & { api_key: string }>('POST', '/v1/publishers', body);
              setMode({ kind: 'none' });
              setMessage(`Publisher ${created.name} created (${created.id}).`);
              setSecret({ label: `API key of ${created.name}`, value: created.api_key });
              await publishers.reload();
            }}
          />
        </section>
      ) : null}
      {mode.kind === 'edit' ? (
        <section aria-labelledby="publisher-edit-title" class="panel">
          <h2 id="publisher-edit-title">Edit {mode.publisher.name}</h2>
          <SchemaForm
            key={mode.publisher.id}
            title={`Edit ${mode.publisher.name}`}
            fields={fieldsOf(bodySchema(doc, 'PATCH', '/v1/publishers/{id}'), { order: ORDER, labels: LABELS })}
            initial={mode.publisher}
            changedOnly
            submitLabel="Save changes"
            onCancel={() => setMode({ kind: 'none' })}
            onSubmit={async (body) => {
              await api('PATCH', `/v1/publishers/${encodeURIComponent(mode.publisher.id)}`, body);
              setMode({ kind: 'none' });
              setMessage(`${mode.publisher.name} saved.`);
              await publishers.reload();
            }}
          />
        </section>
      ) : null}
    </>
  );
}
