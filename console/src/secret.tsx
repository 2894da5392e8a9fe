/**
 * A secret the API shows once (a publisher's API key, an endpoint's signing secret): shown in a
 * read-only field with a copy button until the operator dismisses it; the console keeps it
 * nowhere else.
 */
import { useState } from 'preact/hooks';

let seq = 0;

/** See the module comment. */
export function SecretOnce(props: { label: string; value: string; note?: string; onDismiss: () => void }) {
  const [id] = useState(() => `secret-${++seq}`);
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('yes');
    } catch {
      // No clipboard permission (e.g. plain http on another host): select the text for Ctrl+C.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('failed');
    }
  };
  return (
    <section class="secret" role="status" aria-label={props.label} data-testid="secret-once">
      <p>
        <strong>{props.label}</strong>: {props.note ?? 'shown only this once. Copy it now; the exchange keeps only a hash or sealed copy.'}
      </p>
      <div class="secret-row">
        <label for={id} class="visually-hidden">
          {props.label}
        </label>
        <input id={id} class="mono" readOnly value={props.value} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={props.onDismiss}>
          Done
        </button>
      </div>
      <p class="hint" aria-live="polite">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Copy was refused by the browser: the text is selected, press Ctrl+C.' : ''}
      </p>
    </section>
  );
}
