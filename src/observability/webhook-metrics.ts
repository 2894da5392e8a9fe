/**
 * Webhook delivery metrics (prom-client), registered on the app's registry
 * (`observability/metrics.ts`). DESIGN section 6.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../domain/clock.js';

/** Outcome of one delivery attempt: 2xx, will retry, no attempt left, or 410 (endpoint disabled). */
export type WebhookDeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'gone';

/** What the webhook dispatcher reports. */
export interface WebhookMetrics {
  /** `adx_webhook_deliveries_total{outcome}`: attempts by outcome. */
  deliveries: Counter<'outcome'>;
  /** `adx_webhook_attempt_seconds`: duration of one HTTP attempt (connect to last excerpt byte), seconds. */
  attemptSeconds: Histogram<never>;
}

/** Buckets in seconds: fast receivers answer in ms; the attempt timeout is 15 s. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/**
 * Registers the webhook metrics on `registry` and answers the ones the dispatcher updates.
 * The outbox gauges are computed at scrape time (`collect()`) from `depth()` (the outbox port's
 * `depth`) and `clock`: `adx_outbox_depth` = pending messages, `adx_outbox_oldest_due_age_seconds`
 * = how late the oldest pending message is (0 when none is due yet or none is pending). When
 * `depth()` rejects (store down) the gauges keep their last values so a scrape still succeeds.
 * @throws Error (prom-client) when these metric names are already on `registry`.
 */
export function createWebhookMetrics(
  registry: Registry,
  depth: () => Promise<{ pending: number; oldestDueAtMs: number | null }>,
  clock: Clock,
): WebhookMetrics {
  const registers = [registry];
  let last: { pending: number; oldestDueAtMs: number | null } = { pending: 0, oldestDueAtMs: null };
  // Both gauges read one depth() per scrape: the first to collect fetches, the second reuses it.
  let pendingRead: Promise<void> | null = null;
  const refresh = (): Promise<void> => {
    if (pendingRead === null) {
      pendingRead = depth()
        .then((value) => {
          last = value;
        })
        .catch(() => undefined)
        .finally(() => {
          setImmediate(() => {
            pendingRead = null;
          });
        });
    }
    return pendingRead;
  };
  new Gauge({
    name: 'adx_outbox_depth',
    help: 'Pending webhook messages in the outbox',
    registers,
    async collect() {
      await refresh();
      this.set(last.pending);
    },
  });
  new Gauge({
    name: 'adx_outbox_oldest_due_age_seconds',
    help: 'How long the oldest due pending webhook message has waited past its due time',
    registers,
    async collect() {
      await refresh();
      const oldest = last.oldestDueAtMs;
      this.set(oldest === null ? 0 : Math.max(0, clock.now() - oldest) / 1000);
    },
  });
  return {
    deliveries: new Counter({
      name: 'adx_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed, gone)',
      labelNames: ['outcome'],
      registers,
    }),
    attemptSeconds: new Histogram({
      name: 'adx_webhook_attempt_seconds',
      help: 'Duration of one webhook delivery attempt',
      buckets: ATTEMPT_BUCKETS,
      registers,
    }),
  };
}
