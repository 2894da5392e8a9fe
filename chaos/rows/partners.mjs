/**
 * Rows 1-7: the baseline and the faulty partner's faults (DESIGN sections 4 and 5, issue 7 part
 * 2). The good partner bids 1.00 CPM on every imp; the faulty one misbehaves as the row says (its
 * valid-looking bids offer 2.00, so they would win if the exchange took them). Each row checks:
 * every answer is 200 and carries the good partner's bid only, and the fault is counted in
 * `adx_adapter_errors_total` / `adx_adapter_bid_losses_total` once per request the row sent.
 * Importing this module does nothing.
 */
import { diffCounts, drainEvents, formatCounts, pacedLoad, resultFrom, scrapeMetrics, seriesBy } from './kit.mjs';

/**
 * @typedef {object} PartnerFault
 * @property {string} fault table label
 * @property {string} mode `chaos/dsp.mjs` mode of the faulty partner
 * @property {string} [errorKind] the `adapter_error` each call must be counted as
 * @property {string[]} [lossReasons] OpenRTB 2.5 loss reasons (section 5.25) each call's bids must be dropped with
 */

/** @type {PartnerFault[]} */
export const PARTNER_FAULTS = [
  { fault: 'baseline (no fault)', mode: 'nobid' },
  { fault: 'partner never answers', mode: 'hang', errorKind: 'timeout' },
  { fault: 'partner answers after tmax', mode: 'late', errorKind: 'timeout' },
  { fault: 'partner sends 5 MB', mode: 'huge', errorKind: 'too_large' },
  { fault: 'partner sends junk JSON', mode: 'junk', errorKind: 'bad_response' },
  { fault: 'partner closes socket mid-answer', mode: 'cut', errorKind: 'network' },
  { fault: 'bad bids: unknown imp, 728x90, NaN price', mode: 'badbids', lossReasons: ['3', '203', '9'] },
];

/**
 * Runs one partner-fault row.
 * @param {import('./kit.mjs').RowContext} ctx @param {PartnerFault} spec @param {number} index row number (ids)
 * @returns {Promise<import('./kit.mjs').RowResult>}
 */
export async function runPartnerRow(ctx, spec, index) {
  const faulty = ctx.partnerIds.faulty;
  await ctx.setFaultyMode(spec.mode);
  const before = await scrapeMetrics(ctx);
  const tally = await pacedLoad(ctx, `r${index}`).done;
  const answered = tally.s200 + tally.s204;
  const bidIds = tally.bids.map((b) => b.bidId);
  const drain = await drainEvents(ctx, bidIds);
  const after = await scrapeMetrics(ctx);
  await ctx.setFaultyMode('nobid');

  const result = resultFrom(spec.fault, tally, { expected: bidIds.length, lost: drain.lost.length });
  const errors = diffCounts(seriesBy(before, 'adx_adapter_errors_total', { adapter: faulty }, 'adapter_error'), seriesBy(after, 'adx_adapter_errors_total', { adapter: faulty }, 'adapter_error'));
  const losses = diffCounts(seriesBy(before, 'adx_adapter_bid_losses_total', { adapter: faulty }, 'loss_reason'), seriesBy(after, 'adx_adapter_bid_losses_total', { adapter: faulty }, 'loss_reason'));
  if (spec.errorKind) {
    result.notes.push(`faulty counted: ${formatCounts(errors)}`);
    if ((errors[spec.errorKind] ?? 0) !== answered) result.failures.push(`adapter_error="${spec.errorKind}" counted ${errors[spec.errorKind] ?? 0} times for ${answered} calls`);
  }
  if (spec.lossReasons) {
    result.notes.push(`faulty bids dropped, loss ${formatCounts(losses)}`);
    for (const reason of spec.lossReasons) {
      if ((losses[reason] ?? 0) !== answered) result.failures.push(`loss ${reason} counted ${losses[reason] ?? 0} times for ${answered} calls`);
    }
  }
  if (!spec.errorKind && !spec.lossReasons && Object.keys(errors).length > 0) result.failures.push(`faulty partner errors without a fault: ${formatCounts(errors)}`);
  const notGood = tally.sent - tally.s200;
  if (notGood > 0) result.failures.push(`${notGood} answers without the good bid (want every answer 200)`);
  const faultyWins = tally.bids.filter((b) => b.seat !== ctx.partnerIds.good).length;
  if (faultyWins > 0) result.failures.push(`${faultyWins} bids from the faulty partner were answered`);
  return result;
}
