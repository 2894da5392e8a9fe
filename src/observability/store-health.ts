/**
 * Whether the store can take the bid path's writes (DESIGN section 2: "503 means not ready: the
 * store is unreachable"). A background probe pings the store every `intervalMs`; a failed write
 * on the bid path marks it unhealthy at once. While unhealthy, bid requests answer 503 before any
 * partner is called, and `/readyz` is red; the next successful probe makes it healthy again.
 */
import type { Logger } from 'pino';
import type { Store } from '../storage/ports.js';

/** The store's health as the bid path sees it. */
export interface StoreHealth {
  healthy(): boolean;
  /** A write failed: unhealthy until the next successful probe. */
  markFailed(error: unknown): void;
  /** Probes now; resolves to the new state. */
  probe(): Promise<boolean>;
  start(): void;
  stop(): void;
}

/** Creates the health tracker over `store.ping()` with a `timeoutMs` bound per probe. */
export function createStoreHealth(deps: { store: Pick<Store, 'ping'>; log: Logger; intervalMs?: number; timeoutMs?: number }): StoreHealth {
  const intervalMs = deps.intervalMs ?? 500;
  const timeoutMs = deps.timeoutMs ?? 1000;
  let ok = true;
  let timer: NodeJS.Timeout | undefined;
  let probing: Promise<boolean> | undefined;

  const set = (value: boolean, error?: unknown) => {
    if (value !== ok) {
      if (value) deps.log.info('store reachable again');
      else deps.log.error({ err: error }, 'store unreachable: bid requests answer 503');
    }
    ok = value;
  };

  const probe = (): Promise<boolean> => {
    if (probing) return probing;
    let t: NodeJS.Timeout | undefined;
    probing = Promise.race([
      deps.store.ping().then(() => true),
      new Promise<boolean>((_, reject) => {
        t = setTimeout(() => reject(new Error(`store ping took over ${timeoutMs} ms`)), timeoutMs);
      }),
    ])
      .then(
        () => {
          set(true);
          return true;
        },
        (error: unknown) => {
          set(false, error);
          return false;
        },
      )
      .finally(() => {
        clearTimeout(t);
        probing = undefined;
      });
    return probing;
  };

  return {
    healthy: () => ok,
    markFailed(error) {
      set(false, error);
    },
    probe,
    start() {
      if (timer) return;
      timer = setInterval(() => void probe(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
