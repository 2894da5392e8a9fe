/**
 * Win, billing and impression notices (DESIGN section 3): the logic behind
 * `GET /v1/notice/{win,billing,impression}?t=<token>&price=<net CPM>`. The HTTP edge maps the
 * outcome to a status: `ok` 200 (or the 1x1 GIF), `forged`/`malformed` 403, `expired` 410.
 *
 * Rules:
 * - The token (notices/token.ts) says what was sold; it is verified without a store lookup.
 * - `price` is the net CPM the supply side substituted for `${AUCTION_PRICE}`, in the token's
 *   (response) currency. Absent, empty or still holding the macro (`${AUCTION_PRICE}`, or
 *   percent-encoded, any case) = absent: the token's prices are used, not flagged. A decimal
 *   between 0 and the token's net price (inclusive) is taken: net = supplied converted to USD,
 *   gross = token gross x supplied / token net. Anything else: token prices, `flagged`.
 * - Notices are idempotent per exchange bid id and ledger kind (`win`; `billing` shared by the
 *   billing notice and the impression pixel), through `store.notices.record`, so a repeat on any
 *   node changes no counter, calls no partner and answers `ok` with `first: false`.
 * - First win: `wins` +1, then the partner's own `nurl` (macros substituted) is fired.
 * - First billing or impression: `impressions` +1 and revenue (CPM / 1000 per impression, gross
 *   and net, USD micros), the partner's `burl` is fired, and `onBillable` (the `billing.notice`
 *   event) is awaited, so the event is durable before the answer goes out. In the ledger's own
 *   transaction the net revenue is added to the publisher's cumulative total and every revenue
 *   milestone it passes is recorded with its `revenue.milestone` event (at once, exactly once).
 * - The bid record (for the partner's URLs) may be missing, e.g. a token minted by another
 *   deployment sharing the secret: counting still follows the token; the partner call is skipped.
 */
import type { Clock } from '../domain/clock.js';
import type { CurrencyConverter } from '../domain/currency.js';
import { scaleMicros, toMicros, type Micros } from '../domain/money.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { CounterSink } from '../reporting/counter-sink.js';
import type { SeriesSink } from '../reporting/series-sink.js';
import type { BidRecord, NoticeRecord, OutboxMessage, RevenueRecognition, Store } from '../storage/ports.js';
import { substituteMacros } from './macros.js';
import type { PartnerNoticeKind, PartnerNotifier } from './partner-notifier.js';
import type { NoticeTokenCodec, NoticeTokenPayload } from './types.js';

/** Which exchange URL was fired: `nurl` (win), `burl` (billing) or the impression pixel. */
export type NoticeKindParam = 'win' | 'billing' | 'impression';

/**
 * Outcome of one notice. `ok.first` is true when this call recorded the notice (counters moved,
 * partner called); `ok.flagged` is true when the stored notice's supplied price was unusable and
 * the token's price was taken (for a repeat: the flag of the notice recorded first).
 * `forged`/`malformed` answer 403 at the edge, `expired` 410.
 */
export type NoticeOutcome =
  | { status: 'ok'; first: boolean; flagged: boolean }
  | { status: 'forged' }
  | { status: 'expired' }
  | { status: 'malformed' };

/** Dependencies of `createNoticeService`. */
export interface NoticeServiceDeps {
  /** The ledger (idempotency) and bid records (partners' notice URLs). */
  store: Pick<Store, 'bids' | 'notices'>;
  clock: Clock;
  tokens: NoticeTokenCodec;
  /** Where wins, impressions and revenue are counted (in memory, flushed in batches). */
  counters: CounterSink;
  /** Counts wins per demand partner for the stored series (DESIGN section 7); none when absent. */
  series?: Pick<SeriesSink, 'addPartner'>;
  notifier: PartnerNotifier;
  metrics: Metrics;
  log: Logger;
  /** The current currency converter (replaced when rates change). */
  rates: () => CurrencyConverter;
  /**
   * Called once per bid when its impression becomes billable (first billing notice or pixel),
   * with the stored ledger record and the token payload; awaited before the notice answers.
   * The webhook layer emits `billing.notice` from it.
   */
  onBillable?: (notice: NoticeRecord, payload: NoticeTokenPayload) => void | Promise<void>;
  /**
   * Outbox rows of the events a billable impression causes (`billing.notice`, DESIGN section 6),
   * built before the ledger write and stored in the SAME transaction, only when this notice is
   * the first billing one for its bid. `notice` is the record about to be written.
   */
  billingEvents?: (notice: NoticeRecord, payload: NoticeTokenPayload) => OutboxMessage[];
  /**
   * Revenue milestones (DESIGN section 6, `revenue.milestone`): the configured amounts and the
   * outbox rows of one milestone's event. Every first billing notice adds its net revenue to the
   * publisher's cumulative total in the store, in the ledger's transaction, and records the
   * milestones the total passes with these rows (none configured: the total is still kept).
   */
  milestones?: Pick<RevenueRecognition, 'milestonesMicros' | 'messagesFor'>;
  /** Called after outbox rows were stored (wakes the webhook dispatcher). */
  onEventsStored?: () => void;
}

/** The notice service: one method per request. */
export interface NoticeService {
  /**
   * Handles one notice. `token` is the `t` parameter, `price` the `price` parameter as received
   * (after URL decoding), if any. Resolves with the outcome; rejects only when the store (or
   * `onBillable`) fails, which the edge answers 500/503 (the supply side may then retry; a repeat
   * is harmless).
   */
  handle(kind: NoticeKindParam, token: string, price: string | undefined): Promise<NoticeOutcome>;
}

/** The `${AUCTION_PRICE}` macro left unreplaced, plain or percent-encoded, any case. */
const UNREPLACED_PRICE = /(?:\$|%24)(?:\{|%7B)AUCTION_PRICE/i;
/** A plain decimal number (an optional sign, digits, an optional fraction, an optional exponent). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Prices a notice recognizes, USD micros of CPM, and how the supplied price relates to the token's. */
interface NoticePrices {
  netUsdMicros: Micros;
  grossUsdMicros: Micros;
  flagged: boolean;
  /** Supplied net / token net, as the pair (supplied, token net) in the token's currency; undefined = 1. */
  ratio: { numerator: Micros; denominator: Micros } | undefined;
}

/**
 * Prices for a notice from the token and the supplied `price` parameter (see the module rules).
 * Pure; `rates` converts the supplied price to USD (when the currency lost its rate since the
 * token was issued, the token's own net USD price is scaled instead).
 */
export function resolveNoticePrices(payload: NoticeTokenPayload, price: string | undefined, rates: CurrencyConverter): NoticePrices {
  const tokenPrices: NoticePrices = { netUsdMicros: payload.netUsdMicros, grossUsdMicros: payload.grossUsdMicros, flagged: false, ratio: undefined };
  const text = price?.trim();
  if (text === undefined || text === '' || UNREPLACED_PRICE.test(text)) return tokenPrices;
  const supplied = DECIMAL.test(text) ? toMicros(Number(text)) : Number.NaN;
  if (!Number.isFinite(supplied) || supplied < 0 || supplied > payload.netMicros) return { ...tokenPrices, flagged: true };
  if (supplied === payload.netMicros) return tokenPrices;
  const suppliedMicros = supplied === 0 ? 0 : supplied; // no -0 in the ledger
  return {
    netUsdMicros: rates.toUsd(suppliedMicros, payload.currency) ?? scaleMicros(payload.netUsdMicros, suppliedMicros, payload.netMicros),
    grossUsdMicros: scaleMicros(payload.grossUsdMicros, suppliedMicros, payload.netMicros),
    flagged: false,
    ratio: { numerator: suppliedMicros, denominator: payload.netMicros },
  };
}

/**
 * Creates the notice service (DESIGN section 3; OpenRTB 2.5 sections 4.2.3 and 4.4 for the
 * partner calls). See the module comment for the rules.
 */
export function createNoticeService(deps: NoticeServiceDeps): NoticeService {
  const { store, clock, tokens, counters, notifier, metrics, log } = deps;

  /** Fires the partner's own nurl/burl from the bid record, if both exist. Never rejects. */
  async function callPartner(which: PartnerNoticeKind, payload: NoticeTokenPayload, prices: NoticePrices): Promise<void> {
    let bid: BidRecord | undefined;
    try {
      bid = await store.bids.get(payload.bidId);
    } catch (err) {
      log.warn({ err, bidId: payload.bidId }, 'bid record lookup failed; partner notice skipped');
      return;
    }
    if (bid === undefined) {
      log.debug({ bidId: payload.bidId, which }, 'no bid record; partner notice skipped');
      return;
    }
    const template = which === 'nurl' ? bid.partnerNurl : bid.partnerBurl;
    if (!template) return;
    const clearingMicros = prices.ratio === undefined
      ? bid.clearingPartnerMicros
      : scaleMicros(bid.clearingPartnerMicros, prices.ratio.numerator, prices.ratio.denominator);
    const url = substituteMacros(template, {
      auctionId: bid.partnerRequestId,
      bidId: bid.partnerBidId,
      impId: bid.impId,
      seatId: bid.seat,
      adId: bid.adId ?? undefined,
      priceMicros: clearingMicros,
      currency: bid.partnerCurrency,
      mbr: bid.mbr,
    });
    notifier.fire(which, url);
  }

  return {
    async handle(kind, token, price) {
      const nowMs = clock.now();
      const verified = tokens.verify(token, nowMs);
      if (!verified.ok) {
        metrics.notices.inc({ kind, outcome: verified.reason });
        return { status: verified.reason };
      }
      const payload = verified.payload;
      const prices = resolveNoticePrices(payload, price, deps.rates());
      const notice: NoticeRecord = {
        bidId: payload.bidId,
        kind: kind === 'win' ? 'win' : 'billing',
        publisherId: payload.publisherId,
        partnerId: payload.partnerId,
        auctionId: payload.auctionId,
        netUsdMicros: prices.netUsdMicros,
        grossUsdMicros: prices.grossUsdMicros,
        priceFlagged: prices.flagged,
        source: kind,
        receivedAtMs: nowMs,
      };
      const billing = notice.kind === 'billing';
      const messages = billing && deps.billingEvents ? deps.billingEvents(notice, payload) : [];
      // Revenue of one impression is CPM / 1000, rounded to whole micros.
      const revenue: RevenueRecognition | undefined = billing
        ? { netMicros: scaleMicros(notice.netUsdMicros, 1, 1000), milestonesMicros: deps.milestones?.milestonesMicros ?? [], messagesFor: deps.milestones?.messagesFor ?? (() => []) }
        : undefined;
      const { outcome, stored, milestones } = await store.notices.record(notice, messages, revenue);
      if (outcome === 'repeat') {
        metrics.notices.inc({ kind, outcome: 'repeat' });
        return { status: 'ok', first: false, flagged: stored.priceFlagged };
      }

      metrics.notices.inc({ kind, outcome: 'first' });
      // `flagged` is counted on top of `first`: it marks first notices whose price was unusable.
      if (prices.flagged) metrics.notices.inc({ kind, outcome: 'flagged' });
      if (kind === 'win') {
        counters.add(payload.publisherId, { wins: 1 }, nowMs);
        deps.series?.addPartner(payload.partnerId, { wins: 1 }, nowMs);
        await callPartner('nurl', payload, prices);
      } else {
        counters.add(
          payload.publisherId,
          {
            impressions: 1,
            // Revenue of one impression is CPM / 1000, rounded to whole micros.
            revenueGrossMicros: scaleMicros(stored.grossUsdMicros, 1, 1000),
            revenueNetMicros: scaleMicros(stored.netUsdMicros, 1, 1000),
          },
          nowMs,
        );
        await callPartner('burl', payload, prices);
        if (messages.length > 0 || milestones.length > 0) deps.onEventsStored?.();
        for (const m of milestones) log.info({ publisherId: m.publisherId, milestoneMicros: m.milestoneMicros }, 'revenue.milestone');
        if (deps.onBillable) await deps.onBillable(stored, payload);
      }
      return { status: 'ok', first: true, flagged: prices.flagged };
    },
  };
}
