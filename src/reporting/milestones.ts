/**
 * Revenue milestones (DESIGN sections 6 and 9, `revenue.milestone`, `ADX_REVENUE_MILESTONES`):
 * when a publisher's cumulative net revenue passes a configured amount, one event, once ever.
 *
 * There is no timer: the store keeps each publisher's cumulative net revenue and updates it in
 * the transaction of the billing notice (or impression pixel) that recognizes the revenue, and
 * the milestone and its outbox rows are written in that same transaction
 * (`storage/queries/revenue.ts`). So the event is stored before the notice is answered, exactly
 * once on any node and across restarts. A jump past several amounts at once sends one event per
 * amount, each with the same `revenue_total`; an amount added to the configuration below a
 * publisher's total fires with that publisher's next billing notice.
 */
import { toMicros, type Micros } from '../domain/money.js';
import type { EventEmitter } from '../events/emitter.js';
import { revenueMilestonePayload } from '../events/payloads.js';
import type { RevenueRecognition } from '../storage/ports.js';

/** Default milestones (`ADX_REVENUE_MILESTONES` = 100, 1000, 10000, 100000 USD), micros. */
export const DEFAULT_REVENUE_MILESTONES_MICROS: readonly Micros[] = [100, 1000, 10_000, 100_000].map((usd) => usd * 1_000_000);

/**
 * Parses `ADX_REVENUE_MILESTONES`: comma-separated decimal USD amounts (`100, 1000, 2500.50`),
 * each > 0 with at most 6 decimals. Answers micros, ascending, without duplicates; an empty or
 * blank text answers [] (no milestones).
 * @throws Error naming the offending entry for anything else (`abc`, `-5`, `0`, `1,,2`, `1e3`).
 */
export function parseMilestones(text: string): Micros[] {
  if (text.trim() === '') return [];
  const out = new Set<Micros>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (!/^\d+(\.\d{1,6})?$/.test(entry)) throw new Error(`revenue milestones: ${JSON.stringify(entry)} is not a decimal amount like 100 or 2500.50`);
    const micros = toMicros(Number(entry));
    if (!(micros > 0) || !Number.isSafeInteger(micros)) throw new Error(`revenue milestones: ${JSON.stringify(entry)} must be a positive amount`);
    out.add(micros);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The milestone part of a billing notice's revenue recognition (`NoticeServiceDeps.milestones`):
 * `milestonesMicros` (USD micros, amounts) and the outbox rows of each `revenue.milestone`
 * event, built by `emitter` for the endpoints subscribed to it (none: the milestone is still
 * recorded as reached, so it never fires later).
 */
export function milestoneEvents(
  milestonesMicros: readonly Micros[],
  emitter: Pick<EventEmitter, 'messagesFor'>,
): Pick<RevenueRecognition, 'milestonesMicros' | 'messagesFor'> {
  return {
    milestonesMicros: [...milestonesMicros].sort((a, b) => a - b),
    messagesFor: (milestone, revenueTotalMicros) =>
      emitter.messagesFor(
        revenueMilestonePayload({
          publisherId: milestone.publisherId,
          milestoneMicros: milestone.milestoneMicros,
          revenueTotalMicros,
          nowMs: milestone.reachedAtMs,
        }),
        milestone.publisherId,
      ),
  };
}
