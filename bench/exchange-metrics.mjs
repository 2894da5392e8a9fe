/**
 * Reads the exchange's own Prometheus counters (`GET /metrics`) for the bench: answers by
 * outcome, shed and late answers as the exchange counts them, the outbox depth, and the event-loop
 * delay of prom-client's default metrics. Importing this module does nothing.
 *
 * With `serve --workers N > 1` each connection reaches one worker (the cluster hands connections
 * round-robin), so `scrapeMetrics(url, workers)` scrapes over fresh connections until it has seen
 * every worker (told apart by `adx_worker_info{pid}`) and sums them: counters and the outbox depth
 * add up, the event-loop delay is the worst worker's.
 */
import { Client } from 'undici';

/**
 * One scrape: `value(name, labels)` sums every sample of `name` whose labels include `labels`
 * (0 when absent).
 * @typedef {object} MetricsSnapshot
 * @property {(name: string, labels?: Record<string, string>) => number} value
 * @property {() => string | undefined} pid the scraped process's pid (`adx_worker_info`), when one process was scraped
 */

/** Resolution of prom-client's event-loop monitor, ms: its histogram counts it in every sample. */
export const EVENT_LOOP_RESOLUTION_MS = 10;

/**
 * Scrapes `${url}/metrics` of every worker (`workers` > 1: one fresh connection per scrape until
 * each worker's pid was seen, at most 10 tries per worker).
 * @param {string} url the exchange's base URL
 * @param {number} [workers] how many exchange processes serve `url` (default 1)
 * @returns {Promise<MetricsSnapshot>}
 */
export async function scrapeMetrics(url, workers = 1) {
  if (workers <= 1) return parseSnapshot(await scrapeText(url));
  /** @type {Map<string, MetricsSnapshot>} */
  const byPid = new Map();
  for (let i = 0; i < workers * 10 && byPid.size < workers; i++) {
    const snapshot = parseSnapshot(await scrapeText(url));
    // Keep each worker's first scrape: a second one would cover only the instants since the first
    // (prom-client resets its event-loop histogram at every scrape).
    const pid = snapshot.pid() ?? `unknown-${i}`;
    if (!byPid.has(pid)) byPid.set(pid, snapshot);
  }
  const all = [...byPid.values()];
  return {
    // The outbox depth is the shared store's (every worker reports the same) and delay is per process: the max.
    value: (name, want) => (/_lag_|^adx_outbox_depth$/.test(name) ? Math.max(...all.map((s) => s.value(name, want))) : all.reduce((sum, s) => sum + s.value(name, want), 0)),
    pid: () => undefined,
  };
}

/** One scrape over its own connection (closed after), so the cluster may hand it to another worker. @param {string} url */
async function scrapeText(url) {
  const client = new Client(url);
  try {
    const res = await client.request({ method: 'GET', path: '/metrics', headers: { connection: 'close' }, headersTimeout: 5000, bodyTimeout: 5000 });
    return await res.body.text();
  } finally {
    await client.close();
  }
}

/** @param {string} text Prometheus text @returns {MetricsSnapshot & { pid: () => string | undefined }} */
function parseSnapshot(text) {
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
    pid: () => samples.find((s) => s.name === 'adx_worker_info')?.labels.pid,
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

/** Bucket bounds (seconds, as prom-client writes `le`) of `adx_request_time_seconds` (src/observability/metrics.ts). */
const REQUEST_TIME_BUCKETS = ['0.001', '0.0025', '0.005', '0.01', '0.02', '0.04', '0.06', '0.08', '0.1', '0.15', '0.25', '0.5', '1', '2.5'];

/**
 * The upper bound (ms) of the histogram bucket holding the 99th percentile of the bid requests the
 * exchange timed between two scrapes (`adx_request_time_seconds{type="bid"}`: arrival to the
 * auction's outcome, before the answer is written), or undefined when none was timed or it is past
 * the last bucket. A bound, not an estimate: `10` reads "99% took at most 10 ms".
 * @param {(name: string, labels?: Record<string, string>) => number} delta
 * @returns {number | undefined}
 */
function bidP99BoundMs(delta) {
  const count = delta('adx_request_time_seconds_count', { type: 'bid' });
  if (!(count > 0)) return undefined;
  for (const le of REQUEST_TIME_BUCKETS) {
    if (delta('adx_request_time_seconds_bucket', { type: 'bid', le }) >= 0.99 * count) return Number(le) * 1000;
  }
  return undefined;
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
    /** Bucket bound (ms) of the exchange's own p99 of bid request time (`bidP99BoundMs`). */
    bidP99BoundMs: bidP99BoundMs(d),
    loopDelayP99Ms: loop('adx_nodejs_eventloop_lag_p99_seconds'),
    loopDelayMaxMs: loop('adx_nodejs_eventloop_lag_max_seconds'),
  };
}
