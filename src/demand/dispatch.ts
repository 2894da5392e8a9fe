/**
 * The demand dispatcher: calls every enabled demand partner in parallel within the bid
 * request's deadline and gathers the bids that come back in time (DESIGN sections 2 and 5).
 * It owns HTTP (partner-http.ts), deadlines, QPS caps (qps-limiter.ts) and per-partner metrics;
 * adapters stay pure (STYLE 2). Failures are data (`PartnerCallResult.errors`), never thrown.
 */
import type { Adapter, AdapterContext, AdapterError, PartnerBid, PartnerCallResult, PartnerHttpRequest } from './contract.js';
import type { AdapterRegistry } from './registry.js';
import type { Clock } from '../domain/clock.js';
import type { CurrencyConverter } from '../domain/currency.js';
import type { IdGenerator } from '../domain/ids.js';
import type { BidRequest } from '../domain/openrtb.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { DemandPartnerRecord } from '../storage/ports.js';
import { createPartnerHttpClient, type PartnerHttpClient } from './partner-http.js';
import { createQpsLimiter, type QpsLimiter } from './qps-limiter.js';
import { createPrivacyEnforcer, type PrivacyBlockReason, type PrivacyEnforcer, type RequestPrivacy } from '../privacy/index.js';
import { offerByMediaType } from './media-offer.js';

/** Options of one dispatch. */
export interface DispatchOptions {
  /** The exchange publisher id (the API key's): `sid` of the exchange's schain node. */
  publisherId: string;
  /** `clock.monotonicMs()` instant by which the dispatch must resolve: request arrival + tmax. */
  deadlineMonoMs: number;
}

/** What a dispatch gathered: bids in arrival order and one result per enabled partner. */
export interface DispatchResult {
  /** Bids that came back in time, `arrivalSeq` increasing in the order they arrived. */
  bids: PartnerBid[];
  /** One entry per enabled partner, in the order the partners were given. */
  calls: PartnerCallResult[];
}

/** Calls demand partners for a bid request. */
export interface DemandDispatcher {
  /**
   * Calls every enabled partner in parallel and resolves by the deadline with the bids that
   * came back in time. Each partner's budget (ms, sent as `tmax`) is
   * min(partner.timeoutMs, deadlineMonoMs - now - tmaxMarginMs), floored; below 1 ms the
   * partner is `skipped`. A partner whose `media_types` take none of the request's imps is
   * `skipped` without an error and not called. A partner over its QPS cap is `skipped` with a
   * `qps_limited` error; an unknown adapter code is `skipped` with a `bad_input` error. A partner
   * the privacy rules block (DESIGN section 11) is `skipped` with a `privacy_blocked` error and
   * `privacyBlocked` set; the others each get their own reduced copy. Disabled partners are
   * ignored (no result). Never rejects.
   */
  dispatch(request: BidRequest, partners: DemandPartnerRecord[], opts: DispatchOptions): Promise<DispatchResult>;
  /** Closes the partner connection pools. */
  close(): Promise<void>;
}

/** Dependencies of `createDemandDispatcher`. */
export interface DemandDispatcherDeps {
  registry: AdapterRegistry;
  clock: Clock;
  metrics: Metrics;
  log: Logger;
  /** The current rates table (read once per dispatch, so admin replacements apply at once). */
  rates: () => CurrencyConverter;
  /** Mints outgoing request ids (`req_...`). */
  ids: IdGenerator;
  /** `asi` of the exchange's schain node (config `exchange.domain`). */
  exchangeDomain: string;
  /** An answer larger than this many bytes (raw or inflated) is dropped as `too_large`. */
  maxResponseBytes: number;
  /** Keep-alive connections per partner origin. */
  connectionsPerPartner: number;
  /** Budget kept back from each partner's share of the deadline, ms. */
  tmaxMarginMs: number;
  /** Privacy rules (DESIGN section 11); default: an enforcer of the dispatcher's own. */
  privacy?: PrivacyEnforcer;
}

/** Shared by the calls of one dispatch: bids in arrival order and the next `arrivalSeq`. */
interface Gathered {
  bids: PartnerBid[];
  nextSeq: number;
}

/** One partner call in progress: what `callPartner` needs besides the dispatcher's deps. */
interface Call {
  request: BidRequest;
  partner: DemandPartnerRecord;
  publisherId: string;
  deadlineMonoMs: number;
  rates: CurrencyConverter;
  gathered: Gathered;
  /** The request's privacy, decoded once per dispatch: each partner's copy comes from it. */
  privacy: RequestPrivacy;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Builds the dispatcher; its HTTP pools live until `close()`. */
export function createDemandDispatcher(deps: DemandDispatcherDeps): DemandDispatcher {
  const { registry, clock, metrics, log } = deps;
  const http: PartnerHttpClient = createPartnerHttpClient({ connectionsPerPartner: deps.connectionsPerPartner, maxResponseBytes: deps.maxResponseBytes });
  const qps: QpsLimiter = createQpsLimiter({ clock });
  const privacy: PrivacyEnforcer = deps.privacy ?? createPrivacyEnforcer();

  function countErrors(partnerId: string, errors: AdapterError[]): void {
    for (const error of errors) metrics.adapterErrors.inc({ adapter: partnerId, adapter_error: error.kind });
  }

  function skipped(partner: DemandPartnerRecord, adapter: string, errors: AdapterError[]): PartnerCallResult {
    countErrors(partner.id, errors);
    if (errors.length > 0 && log.isLevelEnabled('debug')) log.debug({ partner: partner.id, errors }, 'demand partner skipped');
    return { partnerId: partner.id, adapter, outcome: 'skipped', latencyMs: 0, errors };
  }

  /** A partner not called for privacy: counted, and recorded as `skipped` with a `privacy_blocked` error. */
  function privacyBlocked(partner: DemandPartnerRecord, adapter: string, reason: PrivacyBlockReason): PartnerCallResult {
    metrics.privacyBlocked.inc({ partner: partner.id, reason });
    return { partnerId: partner.id, adapter, outcome: 'skipped', latencyMs: 0, errors: [{ kind: 'privacy_blocked', message: reason }], privacyBlocked: reason };
  }

  /** Sends one built request and parses its answer; bids are appended to `gathered` on arrival. */
  async function exchange(adapter: Adapter, sent: PartnerHttpRequest, ctx: AdapterContext, call: Call, errors: AdapterError[]): Promise<number> {
    const result = await http.send(sent, { budgetMs: ctx.tmaxMs, gzip: call.partner.gzip });
    if (!result.ok) {
      errors.push(result.error);
      metrics.adapterRequests.inc({ adapter: call.partner.id, hasbids: 'false' });
      return 0;
    }
    let parsed: ReturnType<Adapter['parseBids']>;
    try {
      parsed = adapter.parseBids(sent, result.response, ctx);
    } catch (err) {
      parsed = { bids: [], errors: [{ kind: 'bad_response', message: `adapter ${adapter.code} threw in parseBids: ${messageOf(err)}` }] };
    }
    for (const error of parsed.errors) errors.push(error);
    const { gathered } = call;
    for (const bid of parsed.bids) {
      gathered.bids.push({
        bid: bid.bid,
        seat: bid.seat,
        currency: bid.currency,
        partnerId: call.partner.id,
        adapter: adapter.code,
        partnerRequestId: sent.body.id,
        arrivalSeq: gathered.nextSeq++,
      });
    }
    metrics.adapterRequests.inc({ adapter: call.partner.id, hasbids: parsed.bids.length > 0 ? 'true' : 'false' });
    return parsed.bids.length;
  }

  async function callPartner(call: Call): Promise<PartnerCallResult> {
    const { partner } = call;
    const adapter = registry.get(partner.adapter);
    if (!adapter) return skipped(partner, partner.adapter, [{ kind: 'bad_input', message: `unknown adapter ${JSON.stringify(partner.adapter)}` }]);
    // Only the imps offering a type the partner takes, reduced to those types (DESIGN section 5).
    // A partner that takes none of them is not asked, and not counted as a privacy block.
    const offered = offerByMediaType(call.request, partner.mediaTypes);
    if (offered === null) return skipped(partner, adapter.code, []);
    // Then privacy (DESIGN section 11): a blocked partner is not called and takes no QPS token.
    const decision = call.privacy.forPartner(partner);
    if (decision.blocked) return privacyBlocked(partner, adapter.code, decision.blocked);

    const startMs = clock.monotonicMs();
    const budgetMs = Math.floor(Math.min(partner.timeoutMs, call.deadlineMonoMs - startMs - deps.tmaxMarginMs));
    if (!(budgetMs >= 1)) return skipped(partner, adapter.code, []);
    if (!qps.tryTake(partner.id, partner.qpsLimit)) {
      return skipped(partner, adapter.code, [{ kind: 'qps_limited', message: `over ${partner.qpsLimit} requests per second` }]);
    }

    const ctx: AdapterContext = {
      partner,
      publisherId: call.publisherId,
      tmaxMs: budgetMs,
      exchangeDomain: deps.exchangeDomain,
      rates: call.rates,
      ids: deps.ids,
    };
    let built: ReturnType<Adapter['buildRequests']>;
    try {
      // Privacy reduces user, device, regs and source; the media offer reduces imps: the partner's
      // copy takes each part from the step that owns it.
      built = adapter.buildRequests(offered === call.request ? decision.request : { ...decision.request, imp: offered.imp }, ctx);
    } catch (err) {
      built = { requests: [], errors: [{ kind: 'bad_response', message: `adapter ${adapter.code} threw in buildRequests: ${messageOf(err)}` }] };
    }
    const errors: AdapterError[] = [...built.errors];
    if (built.requests.length === 0) return skipped(partner, adapter.code, errors);

    let bidCount = 0;
    if (built.requests.length === 1) {
      bidCount = await exchange(adapter, built.requests[0] as PartnerHttpRequest, ctx, call, errors);
    } else {
      const counts = await Promise.all(built.requests.map((sent) => exchange(adapter, sent, ctx, call, errors)));
      for (const n of counts) bidCount += n;
    }

    const latencyMs = clock.monotonicMs() - startMs;
    metrics.adapterRequestTime.observe({ adapter: partner.id }, latencyMs / 1000);
    if (bidCount > 0) metrics.adapterBids.inc({ adapter: partner.id }, bidCount);
    countErrors(partner.id, errors);
    if (errors.length > 0 && log.isLevelEnabled('debug')) log.debug({ partner: partner.id, errors }, 'demand partner errors');

    const outcome: PartnerCallResult['outcome'] =
      bidCount > 0 ? 'bids' : errors.some((e) => e.kind === 'timeout') ? 'timeout' : errors.length > 0 ? 'error' : 'no_bid';
    return { partnerId: partner.id, adapter: adapter.code, outcome, latencyMs, errors };
  }

  return {
    async dispatch(request, partners, opts) {
      const gathered: Gathered = { bids: [], nextSeq: 0 };
      const rates = deps.rates();
      const requestPrivacy = privacy.forRequest(request);
      const pending: Promise<PartnerCallResult>[] = [];
      for (const partner of partners) {
        if (!partner.enabled) continue;
        const call: Call = { request, partner, publisherId: opts.publisherId, deadlineMonoMs: opts.deadlineMonoMs, rates, gathered, privacy: requestPrivacy };
        pending.push(
          callPartner(call).catch((err: unknown) => {
            // Only a bug gets here (every failure above is data); the dispatch still resolves.
            log.error({ err, partner: partner.id }, 'demand partner call failed unexpectedly');
            return { partnerId: partner.id, adapter: partner.adapter, outcome: 'error', latencyMs: 0, errors: [{ kind: 'network', message: messageOf(err) }] } satisfies PartnerCallResult;
          }),
        );
      }
      const calls = await Promise.all(pending);
      return { bids: gathered.bids, calls };
    },
    close: () => http.close(),
  };
}
