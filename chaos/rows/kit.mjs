/**
 * What every chaos row shares: the context it runs in, the good bid request, the paced load
 * phase, the events drain (answered bids vs `auction.complete` deliveries) and the exchange's
 * Prometheus counters. Importing this module does nothing.
 */
import { startLoad } from '../load.mjs';

/**
 * The run a row executes in.
 * @typedef {object} RowContext
 * @property {{ ratePerSec: number, durationSec: number, drainMs: number, tmaxMs: number, overloadRatePerSec: number, overloadSec: number, hostileCount: number, quick: boolean }} settings
 * @property {() => import('../processes.mjs').Child} exchange the exchange process running now
 * @property {string} origin `http://127.0.0.1:<port>` of the exchange (the same across restarts)
 * @property {() => Promise<import('../processes.mjs').Child>} restartExchange starts it again on the same port and SQLite file (the old one must have exited)
 * @property {(mode: string) => Promise<void>} setFaultyMode switches the faulty partner's behaviour (`chaos/dsp.mjs` modes)
 * @property {() => Promise<{ requests: number, bids: number, winHits: Record<string, number> }>} goodStats the good partner's counters
 * @property {{ good: string, faulty: string }} partnerIds exchange ids of the two partners (the `adapter` metric label)
 * @property {import('../receiver.mjs').ChaosReceiver} receiver
 * @property {string} apiKey publisher API key
 * @property {(line: string) => void} log progress line on stderr
 */

/**
 * What a row measured; `failures` lists its own checks that did not hold, `allow` the generic
 * rules it is exempt from, with the reason (see `judge` in chaos/table.mjs).
 * @typedef {object} RowResult
 * @property {string} fault
 * @property {number} requests
 * @property {number} s200
 * @property {number} s204
 * @property {number} s4xx
 * @property {number} s5xx
 * @property {number} dropped
 * @property {number} late late answers that count against the run (see the overload row)
 * @property {number} eventsExpected answered bids, each owed one `auction.complete`
 * @property {number} eventsLost of those, not delivered by the end of the row's drain window
 * @property {string[]} notes
 * @property {string[]} failures
 * @property {{ dropped?: string }} [allow]
 */

/** A valid OpenRTB 2.5 bid request: one 300x250 banner imp, `tmax` ms. @param {string} id @param {number} tmaxMs */
export function goodRequest(id, tmaxMs) {
  return {
    id,
    imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.1, bidfloorcur: 'USD' }],
    site: { id: 'chaos-site', domain: 'chaos.example', page: 'https://chaos.example/', publisher: { id: 'chaos-pub' } },
    device: { ua: 'chaos/1.0', ip: '192.0.2.1' },
    cur: ['USD'],
    at: 2,
    tmax: tmaxMs,
  };
}

/** Headers of a bid request from the seeded publisher. @param {RowContext} ctx */
export function bidHeaders(ctx) {
  return { authorization: `Bearer ${ctx.apiKey}`, 'content-type': 'application/json' };
}

/**
 * A planner of good requests for `startLoad`, ids `<prefix>-<i>`.
 * @param {RowContext} ctx @param {string} prefix
 * @returns {(i: number) => import('../load.mjs').PlannedRequest}
 */
export function goodPlanner(ctx, prefix) {
  const headers = bidHeaders(ctx);
  const tmaxMs = ctx.settings.tmaxMs;
  return (i) => ({ kind: 'good', headers, body: JSON.stringify(goodRequest(`${prefix}-${i}`, tmaxMs)), tmaxMs });
}

/**
 * The row's paced load at the run's unloaded rate, to the end.
 * @param {RowContext} ctx @param {string} prefix @param {number} [durationSec]
 */
export function pacedLoad(ctx, prefix, durationSec = ctx.settings.durationSec) {
  return startLoad({ origin: ctx.origin, ratePerSec: ctx.settings.ratePerSec, durationSec, next: goodPlanner(ctx, prefix), measureFrom: 'scheduled' });
}

/**
 * Waits until every bid id has its `auction.complete` at the receiver, or `timeoutMs` passed.
 * @param {RowContext} ctx @param {Iterable<string>} bidIds @param {number} [timeoutMs]
 * @returns {Promise<{ lost: string[], waitedMs: number }>}
 */
export async function drainEvents(ctx, bidIds, timeoutMs = ctx.settings.drainMs) {
  const ids = [...bidIds];
  const started = performance.now();
  for (;;) {
    const lost = ids.filter((id) => !ctx.receiver.deliveredBidIds.has(id));
    const waitedMs = performance.now() - started;
    if (lost.length === 0 || waitedMs >= timeoutMs) return { lost, waitedMs };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The exchange's counters from `GET /metrics` (Prometheus text): `name{labels}` -> value.
 * @param {RowContext} ctx
 * @returns {Promise<Map<string, number>>}
 */
export async function scrapeMetrics(ctx) {
  const res = await fetch(`${ctx.origin}/metrics`, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  /** @type {Map<string, number>} */
  const out = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+?(?:\{.*\})?)\s+(\S+)$/.exec(line);
    if (m && m[1] && m[2]) out.set(m[1], Number(m[2]));
  }
  return out;
}

/**
 * Sums of the series of `name` whose labels include every `labels` pair, grouped by `groupBy`.
 * @param {Map<string, number>} metrics @param {string} name @param {Record<string, string>} labels @param {string} groupBy
 * @returns {Record<string, number>}
 */
export function seriesBy(metrics, name, labels, groupBy) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const [key, value] of metrics) {
    if (!key.startsWith(`${name}{`)) continue;
    if (!Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`))) continue;
    const group = new RegExp(`${groupBy}="([^"]*)"`).exec(key)?.[1] ?? '';
    out[group] = (out[group] ?? 0) + value;
  }
  return out;
}

/** `after - before` per key, keys with no change left out. @param {Record<string, number>} before @param {Record<string, number>} after */
export function diffCounts(before, after) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const [key, value] of Object.entries(after)) {
    const d = value - (before[key] ?? 0);
    if (d !== 0) out[key] = d;
  }
  return out;
}

/** `{a: 1, b: 2}` -> `a 1, b 2`. @param {Record<string, number>} counts */
export function formatCounts(counts) {
  const entries = Object.entries(counts);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} ${v}`).join(', ');
}

/**
 * A RowResult from a load tally and the drain outcome.
 * @param {string} fault @param {import('../load.mjs').LoadTally} tally @param {{ expected: number, lost: number }} events
 * @returns {RowResult}
 */
export function resultFrom(fault, tally, events) {
  /** @type {string[]} */
  const notes = [`max ${tally.maxLatencyMs.toFixed(0)} ms`];
  if (tally.lateAtSec.length > 0) notes.push(`late ones sent ${Math.min(...tally.lateAtSec).toFixed(2)}-${Math.max(...tally.lateAtSec).toFixed(2)} s into the row`);
  if (tally.harnessLagMaxMs > 20) notes.push(`harness event-loop lag up to ${tally.harnessLagMaxMs.toFixed(0)} ms`);
  if (tally.skipped > 0) notes.push(`${tally.skipped} not sent (client back-pressure)`);
  if (tally.dropped > 0) notes.push(`dropped: ${formatCounts(tally.dropReasons)}`);
  if (tally.samples.length > 0 && tally.s5xx > 0) notes.push(`5xx e.g. ${tally.samples[0]}`);
  return {
    fault,
    requests: tally.sent,
    s200: tally.s200,
    s204: tally.s204,
    s4xx: tally.s4xx,
    s5xx: tally.s5xx,
    dropped: tally.dropped,
    late: tally.late,
    eventsExpected: events.expected,
    eventsLost: events.lost,
    notes,
    failures: [],
  };
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
