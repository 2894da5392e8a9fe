/**
 * A form built from an admin API body schema (`fields.ts`): every control has a visible label,
 * its schema description as a hint (`aria-describedby`), and its error next to it
 * (`aria-invalid`, `aria-describedby`). Checked in the browser with the API's rules before
 * sending; the API's problem+json `errors[]` are then shown the same way, by field.
 */
import { useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { buildBody, rawOf, type FieldSpec, type RawValue } from './fields.js';

let formSeq = 0;

/** The field an API error names: `domains[0]` -> `domains`, `body.name` -> `name`. */
function fieldOfError(field: string, names: string[]): string | undefined {
  const cleaned = field.replace(/^body\.?/, '');
  const head = cleaned.split(/[.[]/)[0] ?? '';
  return names.includes(head) ? head : undefined;
}

/** Props of {@link SchemaForm}. */
export interface SchemaFormProps {
  /** Accessible name of the form. */
  title: string;
  fields: FieldSpec[];
  /** Current values (edit) or defaults (create), as JSON values. */
  initial?: Record<string, unknown>;
  submitLabel: string;
  /** Edits send only what changed. */
  changedOnly?: boolean;
  onSubmit: (body: Record<string, unknown>) => Promise<void>;
  onCancel?: () => void;
  testId?: string;
}

/** See the module comment. */
export function SchemaForm(props: SchemaFormProps) {
  const [prefix] = useState(() => `f${++formSeq}`);
  const initialRaw: Record<string, RawValue> = {};
  for (const f of props.fields) initialRaw[f.name] = rawOf(f, props.initial?.[f.name]);
  const [raw, setRaw] = useState<Record<string, RawValue>>(initialRaw);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (name: string, value: RawValue) => setRaw((r) => ({ ...r, [name]: value }));

  const submit = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    const { body, errors: found } = buildBody(props.fields, raw, initialRaw, { changedOnly: props.changedOnly });
    setErrors(found);
    if (Object.keys(found).length > 0) {
      const first = Object.keys(found)[0];
      document.getElementById(`${prefix}-${first}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      await props.onSubmit(body);
    } catch (error) {
      if (error instanceof ApiError) {
        const byField: Record<string, string> = {};
        const rest: string[] = [];
        for (const e of error.problem.errors ?? []) {
          const name = fieldOfError(e.field, props.fields.map((f) => f.name));
          if (name) byField[name] = byField[name] ? `${byField[name]}; ${e.message}` : e.message;
          else rest.push(`${e.field}: ${e.message}`);
        }
        setErrors(byField);
        if (rest.length > 0 || Object.keys(byField).length === 0) setFormError([error.problem.detail ?? error.message, ...rest].join(' — '));
      } else {
        setFormError(String(error));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="schema-form" aria-label={props.title} onSubmit={submit} noValidate data-testid={props.testId}>
      {props.fields.map((f) => {
        const id = `${prefix}-${f.name}`;
        const hintId = f.hint ? `${id}-hint` : undefined;
        const errorId = errors[f.name] ? `${id}-error` : undefined;
        const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
        const error = errors[f.name] ? (
          <p class="field-error" id={errorId} role="alert">
            {f.label} {errors[f.name]}
          </p>
        ) : null;
        const hint = f.hint ? (
          <p class="hint" id={hintId}>
            {f.hint}
          </p>
        ) : null;
        if (f.kind === 'checkbox') {
          return (
            <div class="field check" key={f.name}>
              <input id={id} type="checkbox" name={f.name} checked={raw[f.name] === true} aria-describedby={describedBy} aria-invalid={errorId ? 'true' : undefined} onChange={(e) => set(f.name, (e.currentTarget as HTMLInputElement).checked)} />
              <label for={id}>{f.label}</label>
              {hint}
              {error}
            </div>
          );
        }
        if (f.kind === 'checkboxes') {
          const chosen = (raw[f.name] as string[]) ?? [];
          return (
            <fieldset class="field" key={f.name} aria-describedby={describedBy}>
              <legend>{f.label}</legend>
              {f.options.map((o) => {
                const oid = `${id}-${String(o.value).replace(/[^a-z0-9]/gi, '-')}`;
                return (
                  <span class="choice" key={String(o.value)}>
                    <input
                      id={oid}
                      type="checkbox"
                      checked={chosen.includes(String(o.value))}
                      onChange={(e) => {
                        const on = (e.currentTarget as HTMLInputElement).checked;
                        set(f.name, on ? [...chosen, String(o.value)] : chosen.filter((c) => c !== String(o.value)));
                      }}
                    />
                    <label for={oid}>{o.label}</label>
                  </span>
                );
              })}
              {hint}
              {error}
            </fieldset>
          );
        }
        return (
          <div class="field" key={f.name}>
            <label for={id}>
              {f.label}
              {f.required ? <span aria-hidden="true"> *</span> : null}
            </label>
            {f.kind === 'select' ? (
              <select id={id} name={f.name} value={raw[f.name] as string} required={f.required} aria-describedby={describedBy} aria-invalid={errorId ? 'true' : undefined} onChange={(e) => set(f.name, (e.currentTarget as HTMLSelectElement).value)}>
                {f.required ? null : <option value="">(default)</option>}
                {f.options.map((o) => (
                  <option key={String(o.value)} value={String(o.value)}>
                    {o.label}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={f.name}
                type={f.kind === 'number' ? 'number' : 'text'}
                step={f.kind === 'number' ? (f.schema.type === 'integer' ? '1' : 'any') : undefined}
                inputMode={f.kind === 'number' ? (f.schema.type === 'integer' ? 'numeric' : 'decimal') : undefined}
                value={raw[f.name] as string}
                required={f.required}
                autoComplete="off"
                spellcheck={false}
                aria-describedby={describedBy}
                aria-invalid={errorId ? 'true' : undefined}
                onInput={(e) => set(f.name, (e.currentTarget as HTMLInputElement).value)}
              />
            )}
            {hint}
            {error}
          </div>
        );
      })}
      {formError ? (
        <p class="form-error" role="alert">
          {formError}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : props.submitLabel}
        </button>
        {props.onCancel ? (
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
