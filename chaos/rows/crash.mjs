/**
 * Rows 10-11: the exchange process dies or is stopped under load, then restarts on the same
 * SQLite file and port (DESIGN section 6: an event is durable before the answer that reports it;
 * section 3: notices are idempotent per exchange bid id). Importing this module does nothing.
 */
import { drainEvents, pacedLoad, resultFrom, scrapeMetrics, seriesBy, sleep } from './kit.mjs';

/** A SIGTERMed exchange must have exited within this many seconds (its own force-exit is 15 s). */
export const SIGTERM_EXIT_BOUND_SEC = 5;

/**
 * Fires the publisher-side win notice of each bid (`${AUCTION_PRICE}` = the bid's price).
 * @param {import('../load.mjs').AnsweredBid[]} bids
 * @returns {Promise<Record<string, number>>} answers per HTTP status (`error` when none)
 */
async function fireWinNotices(bids) {
  /** @type {Record<string, number>} */
  const statuses = {};
  await Promise.all(
    bids.map(async (bid) => {
      let key = 'error';
      try {
        const res = await fetch(bid.nurl.replace('${AUCTION_PRICE}', String(bid.price)), { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        key = String(res.status);
      } catch {
        // counted as `error`
      }
      statuses[key] = (statuses[key] ?? 0) + 1;
    }),
  );
  return statuses;
}

/**
 * Waits until the good partner has seen a win notice for each partner bid id, or `timeoutMs`.
 * @param {import('./kit.mjs').RowContext} ctx @param {string[]} partnerBidIds @param {number} timeoutMs
 */
async function waitForPartnerWins(ctx, partnerBidIds, timeoutMs) {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const { winHits } = await ctx.goodStats();
    if (partnerBidIds.every((id) => (winHits[id] ?? 0) > 0) || performance.now() > until) return winHits;
    await sleep(100);
  }
}

/**
 * Row 10: SIGKILL mid-load, with the faulty partner hanging so every request is in flight for the
 * partner budget (tmax - 20 ms). Before the kill, win notices go out for some answered bids (and reach
 * the partner); after the restart they are sent again, with first notices for other bids answered
 * before the kill. Checks: no answered auction's event lost; the replays count as repeats
 * (`adx_notices_total{kind="win",outcome="repeat"}`), the new ones as first; each noticed bid's
 * partner nurl was hit exactly once. Requests in flight at the kill are dropped by design.
 * @param {import('./kit.mjs').RowContext} ctx
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runSigkillRow(ctx) {
  // The faulty partner hangs, so each request stays in flight until the partner budget ends.
  await ctx.setFaultyMode('hang');
  const load = pacedLoad(ctx, 'r10', ctx.settings.durationSec * 3);
  const wanted = Math.max(10, Math.round(ctx.settings.ratePerSec * ctx.settings.durationSec * 0.5));
  const until = performance.now() + ctx.settings.durationSec * 2000;
  while (load.tally.bids.length < wanted && performance.now() < until) await sleep(20);
  const withPartnerId = load.tally.bids.filter((b) => b.partnerBidId);
  const first = withPartnerId.slice(0, Math.min(40, Math.floor(withPartnerId.length / 2)));
  const second = withPartnerId.slice(first.length, first.length + 20);
  const beforeStatuses = await fireWinNotices(first);
  await waitForPartnerWins(ctx, first.map((b) => /** @type {string} */ (b.partnerBidId)), 3000);

  // The kill, with requests in flight (the pace keeps going until this instant).
  const child = ctx.exchange();
  load.stop();
  child.signal('SIGKILL');
  const exit = await child.exited;
  const tally = await load.done;
  await ctx.setFaultyMode('nobid');
  await ctx.restartExchange();

  const replayStatuses = await fireWinNotices(first);
  const newStatuses = await fireWinNotices(second);
  const metrics = await scrapeMetrics(ctx);
  const wins = seriesBy(metrics, 'adx_notices_total', { kind: 'win' }, 'outcome');
  const noticed = [...first, ...second].map((b) => /** @type {string} */ (b.partnerBidId));
  const winHits = await waitForPartnerWins(ctx, noticed, 3000);
  await sleep(300); // a second (double) partner call would come within this
  const finalHits = (await ctx.goodStats()).winHits;
  const twice = noticed.filter((id) => (finalHits[id] ?? winHits[id] ?? 0) > 1).length;
  const never = noticed.filter((id) => (finalHits[id] ?? 0) === 0).length;

  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds);
  const result = resultFrom('SIGKILL under load, restart', tally, { expected: bidIds.length, lost: drain.lost.length });
  result.allow = { dropped: 'requests in flight at the SIGKILL' };
  result.notes.unshift(
    `killed (${exit.signal}) after ${tally.s200} answers; win notices ${first.length} before + ${first.length} replayed + ${second.length} new: ` +
      `first ${wins.first ?? 0}, repeat ${wins.repeat ?? 0} after restart; partner nurl hit twice ${twice}, never ${never}`,
  );
  const ok = (/** @type {Record<string, number>} */ s, /** @type {number} */ n) => (s['200'] ?? 0) === n;
  if (!ok(beforeStatuses, first.length) || !ok(replayStatuses, first.length) || !ok(newStatuses, second.length)) {
    result.failures.push(`win notices not all 200: before ${JSON.stringify(beforeStatuses)}, replay ${JSON.stringify(replayStatuses)}, new ${JSON.stringify(newStatuses)}`);
  }
  if ((wins.repeat ?? 0) !== first.length || (wins.first ?? 0) !== second.length) {
    result.failures.push(`after restart want win first ${second.length} / repeat ${first.length}, got ${wins.first ?? 0} / ${wins.repeat ?? 0}`);
  }
  if (twice > 0) result.failures.push(`${twice} bids' partner nurl hit more than once (double-counted)`);
  if (never > 0) result.failures.push(`${never} noticed bids' partner nurl never hit`);
  if (first.length === 0) result.failures.push('no bid answered before the kill: the fault was not exercised under load');
  return result;
}

/**
 * Row 11: SIGTERM mid-load, the faulty partner hanging as in row 10. Every request sent before the signal must be answered (no dropped
 * connection), the process must exit 0 within SIGTERM_EXIT_BOUND_SEC; then it restarts and the
 * events of every answered auction are delivered.
 * @param {import('./kit.mjs').RowContext} ctx
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runSigtermRow(ctx) {
  await ctx.setFaultyMode('hang');
  const load = pacedLoad(ctx, 'r11', ctx.settings.durationSec * 3);
  await sleep(ctx.settings.durationSec * 1000);
  const child = ctx.exchange();
  const inFlightAtSignal = load.tally.sent - (load.tally.s200 + load.tally.s204 + load.tally.s4xx + load.tally.s5xx + load.tally.other + load.tally.dropped);
  load.stop();
  const signalAt = performance.now();
  child.signal('SIGTERM');
  const backstop = setTimeout(() => child.signal('SIGKILL'), (SIGTERM_EXIT_BOUND_SEC + 15) * 1000);
  const exit = await child.exited;
  clearTimeout(backstop);
  const exitSec = (exit.atMs - signalAt) / 1000;
  const tally = await load.done;
  await ctx.setFaultyMode('nobid');
  await ctx.restartExchange();
  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds);
  const result = resultFrom('SIGTERM under load, restart', tally, { expected: bidIds.length, lost: drain.lost.length });
  result.notes.unshift(`${inFlightAtSignal} in flight at SIGTERM; exited (${exit.code ?? exit.signal}) in ${exitSec.toFixed(2)} s (bound ${SIGTERM_EXIT_BOUND_SEC} s)`);
  if (exit.code !== 0) result.failures.push(`exit ${exit.code ?? exit.signal}, want 0`);
  if (exitSec > SIGTERM_EXIT_BOUND_SEC) result.failures.push(`exit took ${exitSec.toFixed(2)} s > ${SIGTERM_EXIT_BOUND_SEC} s`);
  return result;
}
