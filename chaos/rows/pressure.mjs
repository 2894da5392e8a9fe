/**
 * Rows 12-13: too much traffic, and hostile traffic (DESIGN section 2: shed with 204 rather than
 * answer late, 503 only when not ready; section 8: bad input never crashes a process or gets a
 * 5xx). Importing this module does nothing.
 */
import { hostilePlanner } from '../hostile.mjs';
import { startLoad } from '../load.mjs';
import { bidHeaders, diffCounts, drainEvents, formatCounts, goodPlanner, resultFrom, scrapeMetrics, seriesBy } from './kit.mjs';

/** Connections (and most requests in flight) of the overload generator. */
const OVERLOAD_CONNECTIONS = 512;

/** Histogram bound of `adx_request_time_seconds` just above tmax + slack (220 ms), seconds. */
const SERVER_LATE_BOUND = '0.25';

/**
 * Bid requests the exchange itself timed above SERVER_LATE_BOUND (its histogram, from arrival to
 * the answer being ready), between two scrapes.
 * @param {Map<string, number>} before @param {Map<string, number>} after
 */
function serverLate(before, after) {
  const count = (/** @type {Map<string, number>} */ m) => m.get('adx_request_time_seconds_count{type="bid"}') ?? 0;
  const within = (/** @type {Map<string, number>} */ m) => m.get(`adx_request_time_seconds_bucket{le="${SERVER_LATE_BOUND}",type="bid"}`) ?? m.get(`adx_request_time_seconds_bucket{type="bid",le="${SERVER_LATE_BOUND}"}`) ?? 0;
  return count(after) - count(before) - (within(after) - within(before));
}

/**
 * Row 12: open-loop load far above what the exchange can answer on this machine, for a few
 * seconds, over OVERLOAD_CONNECTIONS connections. Latency counts from the moment a request got a
 * free connection (not from its scheduled instant): requests the generator could not send are its
 * own queue, reported as "not sent". Client-side late answers are reported, but what counts
 * against the run (the `late` column of this row) is what the exchange measured itself: bid
 * requests it admitted and answered more than 250 ms after their arrival (the histogram bound
 * above tmax + slack), i.e. held past the deadline instead of shedding. The rest of the client's
 * lateness is queueing before the exchange reads the request (kernel socket buffers, its busy
 * event loop, the generator's own loop on the same cores), which a process cannot shed: DESIGN
 * section 2 runs the deadline from arrival.
 * @param {import('./kit.mjs').RowContext} ctx
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runOverloadRow(ctx) {
  const { overloadRatePerSec: rate, overloadSec } = ctx.settings;
  const before = await scrapeMetrics(ctx);
  const started = performance.now();
  const tally = await startLoad({
    origin: ctx.origin,
    ratePerSec: rate,
    durationSec: overloadSec,
    next: goodPlanner(ctx, 'r12'),
    connections: OVERLOAD_CONNECTIONS,
    measureFrom: 'sent',
  }).done;
  const seconds = (performance.now() - started) / 1000;
  const after = await scrapeMetrics(ctx);
  const shed = diffCounts(seriesBy(before, 'adx_requests_shed_total', {}, 'reason'), seriesBy(after, 'adx_requests_shed_total', {}, 'reason'));
  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds, ctx.settings.drainMs * 3);
  const result = resultFrom('overload (open loop, 512 connections)', tally, { expected: bidIds.length, lost: drain.lost.length });
  result.late = serverLate(before, after);
  const answered = tally.s200 + tally.s204 + tally.s4xx + tally.s5xx;
  result.notes.unshift(
    `offered ${rate}/s for ${overloadSec} s, answered ${(answered / seconds).toFixed(0)}/s; shed: ${formatCounts(shed)}; ` +
      `late column = exchange-timed > ${Number(SERVER_LATE_BOUND) * 1000} ms; client-side late (queueing included, not counted): ${formatCounts(tally.lateByClass)}`,
  );
  const shedTotal = Object.values(shed).reduce((a, b) => a + b, 0);
  // Not a failure by itself: the row's promise is "not late", and shedding is one way to keep it.
  if (shedTotal === 0) result.notes.push('nothing shed: the exchange kept up with what reached it; the excess queued in the generator and the kernel');
  return result;
}

/**
 * Row 13: a burst of hostile bodies (chaos/hostile.mjs) mixed with good requests at the paced
 * rate. Every answer is 2xx or 4xx, no connection dropped, every good request answered 200, and
 * `/healthz` still answers 200 afterwards.
 * @param {import('./kit.mjs').RowContext} ctx
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runHostileRow(ctx) {
  const badPerGood = 2;
  const planner = hostilePlanner({ headers: bidHeaders(ctx), tmaxMs: ctx.settings.tmaxMs, prefix: 'r13', badPerGood });
  const total = Math.ceil((ctx.settings.hostileCount * (badPerGood + 1)) / badPerGood);
  const tally = await startLoad({ origin: ctx.origin, ratePerSec: ctx.settings.ratePerSec, durationSec: total / ctx.settings.ratePerSec, next: planner.next, measureFrom: 'scheduled' }).done;
  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds);
  const result = resultFrom('hostile input burst', tally, { expected: bidIds.length, lost: drain.lost.length });
  const good = tally.byKind.good ?? { sent: 0, s200: 0 };
  const bad = Object.entries(tally.byKind).filter(([kind]) => kind !== 'good');
  const badSent = bad.reduce((n, [, t]) => n + t.sent, 0);
  const bad2xx = bad.reduce((n, [, t]) => n + t.s200 + t.s204, 0);
  const bad4xx = bad.reduce((n, [, t]) => n + t.s4xx, 0);
  result.notes.unshift(`${badSent} hostile (${planner.kinds} kinds: ${bad4xx} 4xx, ${bad2xx} 2xx) + ${good.sent} good (${good.s200} 200)`);
  const badOutcome = bad.filter(([, t]) => t.s5xx + t.dropped + t.other > 0).map(([kind, t]) => `${kind.slice(5)}: ${t.s5xx} 5xx, ${t.dropped} dropped`);
  if (badOutcome.length > 0) result.notes.push(`failing kinds: ${badOutcome.join('; ')}`);
  const lateKinds = bad.filter(([, t]) => t.late > 0).map(([kind, t]) => `${kind.slice(5)} ${t.late}`);
  if (lateKinds.length > 0) result.notes.push(`late kinds: ${lateKinds.join(', ')}`);
  if (good.s200 !== good.sent) result.failures.push(`${good.sent - good.s200} good requests not answered 200`);
  let healthz = 0;
  try {
    const res = await fetch(`${ctx.origin}/healthz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    healthz = res.status;
  } catch {
    // 0: no answer
  }
  if (healthz !== 200) result.failures.push(`/healthz answered ${healthz || 'nothing'} after the burst`);
  return result;
}
