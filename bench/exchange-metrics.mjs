/**
 * Reads the exchange's own Prometheus counters (`GET /metrics`) for the bench: answers by
 * outcome, shed and late answers as the exchange counts them, the outbox depth, and the event-loop
 * delay of prom-client's default metrics. Importing this module does nothing.
 *
 * With `serve --workers N > 1` each scrape reaches one worker (the cluster balances connections),
 * so the figures are that worker's; the harness says so under the table.
 */

/**
 * One scrape: `value(name, labels)` sums every sample of `name` whose labels include `labels`
 * (0 when absent).
 * @typedef {object} MetricsSnapshot
 * @property {(name: string, labels?: Record<string, string>) => number} value
 */

/** Resolution of prom-client's event-loop monitor, ms: its histogram counts it in every sample. */
export const EVENT_LOOP_RESOLUTION_MS = 10;

/**
 * Scrapes `${url}/metrics`.
 * @param {string} url the exchange's base URL
 * @returns {Promise<MetricsSnapshot>}
 */
export async function scrapeMetrics(url) {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  /** @type {{ name: string, labels: Record<string, string>, value: number }[]} */
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    /** @type {Record<string, string>} */
    const labels = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return {
    value(name, want = {}) {
      let sum = 0;
      for (const s of samples) {
        if (s.name !== name) continue;
        if (Object.entries(want).every(([k, v]) => s.labels[k] === v)) sum += Number.isFinite(s.value) ? s.value : 0;
      }
      return sum;
    },
  };
}

/**
 * What the exchange counted between two scrapes, plus the gauges of the second.
 * @param {MetricsSnapshot} before
 * @param {MetricsSnapshot} after
 */
export function exchangeDelta(before, after) {
  const d = (/** @type {string} */ name, /** @type {Record<string, string>} */ labels = {}) => after.value(name, labels) - before.value(name, labels);
  // prom-client resets its event-loop histogram at every scrape: the second scrape covers the interval.
  const loop = (/** @type {string} */ name) => Math.max(0, after.value(name) * 1000 - EVENT_LOOP_RESOLUTION_MS);
  return {
    /** 200 answers: auctions with a winner (one imp per bench request, so one `auction.complete` each). */
    wins: d('adx_requests_total', { type: 'bid', status: 'ok' }),
    nobid: d('adx_requests_total', { type: 'bid', status: 'nobid' }),
    shed: d('adx_requests_shed_total'),
    shedByReason: {
      in_flight: d('adx_requests_shed_total', { reason: 'in_flight' }),
      event_loop_delay: d('adx_requests_shed_total', { reason: 'event_loop_delay' }),
    },
    /** Answers the exchange itself sent after the request's tmax (its own clock, from arrival). */
    late: d('adx_bid_answers_late_total'),
    outboxDepth: after.value('adx_outbox_depth'),
    loopDelayP99Ms: loop('adx_nodejs_eventloop_lag_p99_seconds'),
    loopDelayMaxMs: loop('adx_nodejs_eventloop_lag_max_seconds'),
  };
}
