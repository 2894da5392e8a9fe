/**
 * Rows 8-9: the webhook receiver fails (DESIGN section 6: at-least-once delivery, failures
 * retried on the schedule, which the run sets to short delays). Bid traffic goes on at the paced
 * rate meanwhile; once the receiver is healthy again every answered auction's `auction.complete`
 * must arrive within the drain window. Importing this module does nothing.
 */
import { drainEvents, pacedLoad, resultFrom, sleep } from './kit.mjs';

/**
 * Row 8: the receiver is down (connection refused) for the whole load phase and a second after,
 * then up: everything is delivered after it comes back.
 * @param {import('./kit.mjs').RowContext} ctx
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runReceiverDownRow(ctx) {
  await ctx.receiver.setMode('down');
  const downAt = performance.now();
  let tally;
  try {
    tally = await pacedLoad(ctx, 'r8').done;
    await sleep(1000);
  } finally {
    await ctx.receiver.setMode('up');
  }
  const downSec = (performance.now() - downAt) / 1000;
  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds, ctx.settings.drainMs * 2);
  const result = resultFrom('webhook receiver down, then up', tally, { expected: bidIds.length, lost: drain.lost.length });
  result.notes.unshift(`down ${downSec.toFixed(1)} s; ${drain.lost.length === 0 ? 'all delivered' : 'drain ended'} ${(drain.waitedMs / 1000).toFixed(1)} s after it came back`);
  return result;
}

/**
 * Row 9: the receiver answers 500 to every delivery for the first 60% of the load phase, then 204.
 * @param {import('./kit.mjs').RowContext} ctx
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runReceiver500Row(ctx) {
  const refusedBefore = ctx.receiver.stats().refused;
  await ctx.receiver.setMode('fail500');
  const load = pacedLoad(ctx, 'r9');
  const failingMs = ctx.settings.durationSec * 600;
  try {
    await sleep(failingMs);
  } finally {
    await ctx.receiver.setMode('up');
  }
  const tally = await load.done;
  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds, ctx.settings.drainMs * 2);
  const refused = ctx.receiver.stats().refused - refusedBefore;
  const result = resultFrom('webhook receiver 500s, then 200', tally, { expected: bidIds.length, lost: drain.lost.length });
  result.notes.unshift(`${refused} deliveries answered 500 during ${(failingMs / 1000).toFixed(1)} s, then retried`);
  if (refused === 0) result.failures.push('no delivery met the 500s: the fault was not exercised');
  return result;
}
