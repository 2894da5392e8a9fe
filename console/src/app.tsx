/**
 * The console shell (DESIGN section 12): sign-in with the admin key (kept for this tab in
 * sessionStorage), the section navigation (hash routes, so every page is a plain GET of
 * `/console`), and the page of the current route. The OpenAPI document is read once after
 * sign-in; forms are built from its body schemas.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, forgetKey, onUnauthorized, openApi, signIn, storedKey, type OpenApiDocument } from './api.js';
import { ApiDoc } from './doc.js';
import { AlertsPage } from './pages/alerts.js';
import { OverviewPage } from './pages/overview.js';
import { PartnersPage } from './pages/partners.js';
import { PublishersPage } from './pages/publishers.js';
import { ReportsPage } from './pages/reports.js';
import { WebhooksPage } from './pages/webhooks.js';

const PAGES = [
  { route: 'overview', label: 'Overview', Page: OverviewPage },
  { route: 'partners', label: 'Demand partners', Page: PartnersPage },
  { route: 'publishers', label: 'Publishers', Page: PublishersPage },
  { route: 'webhooks', label: 'Webhooks', Page: WebhooksPage },
  { route: 'alerts', label: 'Alerts', Page: AlertsPage },
  { route: 'reports', label: 'Reports', Page: ReportsPage },
] as const;

function currentRoute(): string {
  const route = location.hash.replace(/^#\/?/, '');
  return PAGES.some((p) => p.route === route) ? route : 'overview';
}

function SignIn(props: { onSignedIn: () => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (key.trim() === '') {
      setError('Enter the admin key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(key.trim());
      props.onSignedIn();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? 'Wrong admin key: the exchange refused it.' : `Could not sign in: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>adx console</h1>
      <p>Sign in with the exchange's admin key (ADX_ADMIN_KEY). It is kept for this tab only and sent to this exchange alone.</p>
      {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
      <form onSubmit={submit} aria-label="Sign in" noValidate>
        <div class="field">
          <label for="admin-key">Admin key</label>
          <input id="admin-key" type="password" autoComplete="current-password" value={key} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'admin-key-error' : undefined} onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} />
          {error ? (
            <p id="admin-key-error" class="field-error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </div>
      </form>
    </main>
  );
}

/** The whole console. */
export function App() {
  const [signedIn, setSignedIn] = useState(() => storedKey() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  const [route, setRoute] = useState(currentRoute);
  const [doc, setDoc] = useState<OpenApiDocument | null>(null);

  useEffect(() => {
    const onHash = () => setRoute(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(
    () =>
      onUnauthorized(() => {
        forgetKey();
        setSignedIn(false);
        setNotice('The exchange no longer accepts this key: sign in again.');
      }),
    [],
  );
  useEffect(() => {
    if (signedIn && !doc) openApi().then(setDoc, () => setDoc(null));
  }, [signedIn]);

  if (!signedIn) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={() => {
          setNotice(null);
          setSignedIn(true);
        }}
      />
    );
  }
  const page = PAGES.find((p) => p.route === route) ?? PAGES[0];
  const Page = page.Page;
  return (
    <ApiDoc.Provider value={doc}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">adx</span>
        <nav aria-label="Console sections">
          <ul>
            {PAGES.map((p) => (
              <li key={p.route}>
                <a href={`#/${p.route}`} aria-current={p.route === page.route ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            forgetKey();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page />
      </main>
    </ApiDoc.Provider>
  );
}
