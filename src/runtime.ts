/**
 * Builds a running exchange from a config: opens and migrates the store, resolves the secret
 * key, wires every service (STYLE 6-7), builds the app and, on `start()`, listens and starts the
 * background workers. `main.ts` and the tests use it; neither reads the other's globals.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createDemandPartnerService } from './admin/demand-partners.js';
import { createPublisherService } from './admin/publishers.js';
import { createWebhookEndpointService } from './admin/webhook-endpoints.js';
import { buildApp } from './app.js';
import { createExchange, type AuctionCommit } from './auction/exchange.js';
import type { Config } from './config/types.js';
import { createDemandDispatcher } from './demand/dispatch.js';
import { createAdapterRegistry } from './demand/registry.js';
import { createEventEmitter } from './events/emitter.js';
import { auctionCompletePayload, billingNoticePayload } from './events/payloads.js';
import { systemClock, type Clock } from './domain/clock.js';
import { bundledRates } from './domain/currency-rates.js';
import { createIdGenerator, type IdGenerator } from './domain/ids.js';
import { createRatesHolder } from './domain/rates-holder.js';
import { createConfigCache } from './http/bid/config-cache.js';
import { createLoadShedder } from './http/bid/overload.js';
import { RATES_SETTING } from './http/currency/route.js';
import { createNoticeService } from './notices/notice-service.js';
import { createPartnerNotifier } from './notices/partner-notifier.js';
import { createNoticeTokenCodec } from './notices/token.js';
import { scaleMicros, toMicros } from './domain/money.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { createWebhookMetrics } from './observability/webhook-metrics.js';
import { createStoreHealth } from './observability/store-health.js';
import { createCounterAggregator } from './reporting/counters.js';
import type { CounterSink } from './reporting/counter-sink.js';
import { createAlertEvaluator } from './reporting/alerts.js';
import { createLiveStats } from './reporting/live-stats.js';
import { milestoneEvents } from './reporting/milestones.js';
import { createReportScheduler } from './reporting/report-scheduler.js';
import { createSeriesRollup } from './reporting/series-rollup.js';
import { createAlertRuleService } from './admin/alert-rules.js';
import { createGroupCommitter } from './storage/group-commit.js';
import { openStore } from './storage/open-store.js';
import { createLocalLeaderLock, leaderLockFor, type LeaderLock } from './storage/postgres/leader.js';
import type { BidRecord, DeliveryAttemptRecord, OutboxAttemptUpdate, OutboxMessage, Store } from './storage/ports.js';
import { createWebhookDispatcher } from './webhooks/dispatcher.js';
import { warmUpBidPath } from './warm-up.js';
import { createSecretBox } from './webhooks/secret-box.js';

/** Settings key of the generated secret key (DESIGN section 9). */
export const SECRET_KEY_SETTING = 'secret_key';

/** A built exchange: its app, store and lifecycle. */
export interface Runtime {
  app: FastifyInstance;
  store: Store;
  metrics: Metrics;
  config: Config;
  /**
   * Listens on `config.server.port`/`host`, starts background work, then warms the bid path up
   * (`/healthz` answers at once, `/readyz` 503 until warm-up is done); resolves with the bound URL
   * once warm. A cluster worker (`clusterWorkerIndex`) warms up first and listens after.
   */
  start(): Promise<string>;
  /** Graceful stop: stop accepting, drain in-flight requests, flush counters, close the store. */
  close(): Promise<void>;
}

/** Optional overrides (tests inject a clock and ids). */
export interface RuntimeOptions {
  config: Config;
  log: Logger;
  clock?: Clock;
  ids?: IdGenerator;
  /** An already open store (tests), else `openStore(config.storage.databaseUrl)`. */
  store?: Store;
  /**
   * Set in `serve --workers N` workers (0..N-1). The cluster's primary released stale claims
   * before forking, so workers never release claims at start; on SQLite (no cluster-wide lock)
   * only worker 0 runs the singleton jobs (report.daily, alerts).
   */
  clusterWorkerIndex?: number;
}

/** Resolves the notice-signing secret: config, else the one kept in the store (generated once). */
export async function resolveSecretKey(config: Config, store: Store): Promise<Buffer> {
  if (config.security.secretKey) return Buffer.from(config.security.secretKey, 'utf8');
  const stored = await store.settings.setIfAbsent(SECRET_KEY_SETTING, randomBytes(32).toString('base64url'));
  return Buffer.from(stored, 'utf8');
}

/** A lock that is never held (a cluster worker that leaves singleton jobs to worker 0). */
function neverLeader(): LeaderLock {
  const lock = createLocalLeaderLock();
  void lock.release();
  return lock;
}

/** Builds the exchange. @throws when the store cannot be opened or migrated. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createIdGenerator(clock);
  const store = options.store ?? (await openStore(config.storage.databaseUrl));
  await store.migrate();
  const secretKey = await resolveSecretKey(config, store);
  const metrics = createMetrics();
  metrics.workerInfo.set({ worker: options.clusterWorkerIndex === undefined ? '-' : String(options.clusterWorkerIndex), pid: String(process.pid) }, 1);

  const storedRates = await store.settings.get(RATES_SETTING);
  const rates = createRatesHolder(storedRates ? JSON.parse(storedRates) : (config.currency.rates ? { base: 'USD', ...config.currency.rates } : bundledRates));

  const cache = createConfigCache({ store, clock });
  const storeHealth = createStoreHealth({ store, log });
  const counters = createCounterAggregator({ store, clock, flushIntervalMs: config.storage.counterFlushIntervalMs, log });
  const stats = createLiveStats({ clock });
  // Notices count wins and impressions through this sink: the store's counters and the live stats.
  const noticeCounters: CounterSink = {
    add(publisherId, fields, atMs) {
      counters.add(publisherId, fields, atMs);
      if (fields.wins) stats.recordWin();
      if (fields.impressions) stats.recordImpression(fields.revenueNetMicros ?? 0);
    },
  };
  const tokens = createNoticeTokenCodec({ secretKey, maxAgeSeconds: config.notices.maxAgeSeconds });
  const notifier = createPartnerNotifier({
    clock,
    metrics,
    log,
    attempts: config.notices.partnerCallAttempts,
    timeoutMs: config.notices.partnerCallTimeoutMs,
  });
  const registry = createAdapterRegistry();
  const dispatcher = createDemandDispatcher({
    registry,
    clock,
    metrics,
    log,
    rates: () => rates.get(),
    ids,
    exchangeDomain: config.exchange.domain,
    maxResponseBytes: config.demand.maxResponseBytes,
    connectionsPerPartner: config.demand.connectionsPerPartner,
    tmaxMarginMs: config.auction.tmaxMarginMs,
  });
  // Webhooks (DESIGN section 6): secrets sealed at rest, events routed to subscribed endpoints,
  // written to the outbox in the same transaction as the state change, delivered in the background.
  const box = createSecretBox(secretKey);
  const emitter = createEventEmitter({ store, ids, clock, log });
  await emitter.refresh();
  const webhookMetrics = createWebhookMetrics(metrics.registry, () => store.outbox.depth(), clock);
  const webhookDispatcher = createWebhookDispatcher({
    store,
    box,
    clock,
    log,
    metrics: webhookMetrics,
    owner: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    retryScheduleMs: config.webhooks.retryScheduleMs,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    pollIntervalMs: config.webhooks.pollIntervalMs,
    leaseMs: config.webhooks.leaseMs,
    attemptTimeoutMs: config.webhooks.attemptTimeoutMs,
    perEndpointConcurrency: config.webhooks.perEndpointConcurrency,
    disableAfterFailingMs: config.webhooks.disableAfterFailingMs,
    // A SQLite node is the only node: claims it finds at start belong to a dead process. In a
    // cluster the primary did that before forking; a worker's would be its siblings' live claims.
    releaseAllClaimsAtStart: store.kind === 'sqlite' && options.clusterWorkerIndex === undefined,
    // Attempt records ride in the bid path's group commit: one transaction per batch for both.
    recordAttempt: (attempt, update) => committer.submit({ kind: 'attempt', attempt, update }),
  });

  /** `auction.complete` rows for an auction's winners (records and results are in the same order). */
  const auctionEvents = (commit: AuctionCommit): OutboxMessage[] => {
    if (!emitter.wants('auction.complete', commit.publisher.id)) return [];
    const messages: OutboxMessage[] = [];
    commit.results.forEach((result, i) => {
      const record = commit.bids[i];
      const win = result.winner;
      if (!record || !win) return;
      const pb = win.partnerBid;
      messages.push(
        ...emitter.messagesFor(
          auctionCompletePayload({
            auctionId: result.auctionId,
            requestId: commit.request.id,
            impId: result.impId,
            bidId: record.bidId,
            publisherId: commit.publisher.id,
            seat: pb.partnerId,
            bidMicros: toMicros(pb.bid.price),
            clearingMicros: win.clearingPartnerMicros,
            currency: pb.currency,
            nowMs: commit.nowMs,
          }),
          commit.publisher.id,
        ),
      );
    });
    return messages;
  };

  /**
   * The bid path's group commit: auctions (bid records and their events) and the dispatcher's
   * attempt records, written together in one transaction per batch.
   */
  const committer = createGroupCommitter<
    { kind: 'auction'; commit: AuctionCommit; messages: OutboxMessage[] } | { kind: 'attempt'; attempt: DeliveryAttemptRecord; update: OutboxAttemptUpdate }
  >({
    maxDelayMs: config.storage.groupCommitMaxDelayMs,
    write: async (items) => {
      const bids: BidRecord[] = [];
      const messages: OutboxMessage[] = [];
      const attempts: Array<{ attempt: DeliveryAttemptRecord; update: OutboxAttemptUpdate }> = [];
      for (const item of items) {
        if (item.kind === 'attempt') {
          attempts.push(item);
        } else {
          bids.push(...item.commit.bids);
          messages.push(...item.messages);
        }
      }
      // New auction.complete rows go to the dispatcher directly when it can start them (inserted
      // already claimed by this node): no claim statement per batch under steady load.
      const handoff = webhookDispatcher.preclaim(messages);
      try {
        await store.writeAuction({ bids, messages: handoff.rows, attempts });
      } catch (error) {
        handoff.failed();
        throw error;
      }
      handoff.committed();
      if (handoff.untaken > 0) webhookDispatcher.notify();
    },
  });
  const exchange = createExchange({
    dispatcher,
    partners: () => cache.enabledPartners(),
    commit: (commit) =>
      committer.submit({ kind: 'auction', commit, messages: auctionEvents(commit) }).catch((error: unknown) => {
        storeHealth.markFailed(error);
        throw error;
      }),
    counters,
    series: counters,
    notifier,
    tokens,
    metrics,
    clock,
    ids,
    rates: () => rates.get(),
    publicUrl: config.server.publicUrl,
    takeRate: config.auction.takeRate,
    prebidBidderCodes: config.prebid.bidderCodes,
  });
  const notices = createNoticeService({
    store,
    clock,
    tokens,
    counters: noticeCounters,
    series: counters,
    notifier,
    metrics,
    log,
    rates: () => rates.get(),
    billingEvents: (notice, payload) =>
      !emitter.wants('billing.notice', payload.publisherId)
        ? []
        : emitter.messagesFor(
        billingNoticePayload({
          auctionId: payload.auctionId,
          bidId: payload.bidId,
          publisherId: payload.publisherId,
          seat: payload.partnerId,
          // The net price taken by this notice, in the response currency (a supplied price may be lower).
          priceMicros: payload.netUsdMicros > 0 ? scaleMicros(payload.netMicros, notice.netUsdMicros, payload.netUsdMicros) : payload.netMicros,
          currency: payload.currency,
          nowMs: notice.receivedAtMs,
        }),
        payload.publisherId,
      ),
    milestones: milestoneEvents(config.reporting.revenueMilestones.map((amount) => toMicros(amount)), emitter),
    onEventsStored: () => webhookDispatcher.notify(),
  });
  const onChange = () => cache.invalidate();
  const publishers = createPublisherService({ store, clock, ids, keyRotationGraceSeconds: config.security.keyRotationGraceSeconds, onChange });
  const demandPartners = createDemandPartnerService({ store, clock, ids, adapterCodes: registry.codes(), onChange });
  const webhookEndpoints = createWebhookEndpointService({
    store,
    clock,
    ids,
    box,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    rotationOverlapMs: config.webhooks.rotationOverlapMs,
    onChange: () => webhookDispatcher.endpointsChanged(),
    enqueue: async (messages) => {
      await store.outbox.enqueue(messages);
      webhookDispatcher.notify();
    },
    emitter,
  });
  // report.daily and alert evaluation run once across the cluster (PostgreSQL advisory locks).
  // SQLite's lock is local (always leader): in a cluster only worker 0 takes it.
  const singletonJobsHere = store.kind !== 'sqlite' || (options.clusterWorkerIndex ?? 0) === 0;
  const reportLeader = singletonJobsHere ? leaderLockFor(store, 'report.daily') : neverLeader();
  const alertLeader = singletonJobsHere ? leaderLockFor(store, 'alerts') : neverLeader();
  const rollupLeader = singletonJobsHere ? leaderLockFor(store, 'series.rollup') : neverLeader();
  const reportScheduler = createReportScheduler({
    store,
    counters,
    emitter,
    clock,
    log,
    delayMs: config.reporting.reportDelayMs,
    intervalMs: config.reporting.checkIntervalMs,
    leader: reportLeader,
  });
  const alertEvaluator = createAlertEvaluator({
    store,
    counters,
    emitter,
    clock,
    ids,
    log,
    intervalMs: config.reporting.alertIntervalMs,
    minImpsForFillRate: config.reporting.alertMinImps,
    leader: alertLeader,
  });
  const seriesRollup = createSeriesRollup({
    store,
    clock,
    log,
    minuteRetentionDays: config.reporting.seriesMinuteRetentionDays,
    intervalMs: config.reporting.seriesRollupIntervalMs,
    leader: rollupLeader,
  });
  const alertRules = createAlertRuleService({ store, clock, ids });
  const shedder = createLoadShedder({
    maxInFlight: config.overload.maxInFlight,
    initialLimit: config.overload.initialLimit,
    // Half the margin partners leave before tmax: an answer closer than that to its deadline spent
    // more than half of the exchange's own budget queueing.
    dangerSlackMs: config.auction.tmaxMarginMs / 2,
    maxEventLoopDelayMs: config.overload.maxEventLoopDelayMs,
    sustainMs: config.overload.eventLoopDelaySustainMs,
  });
  let warm = false;
  /** Synthetic auctions over the real bid-path code with every side effect disconnected (src/warm-up.ts). */
  const warmUp = () =>
    warmUpBidPath({
      clock,
      rounds: config.server.warmUpAuctions,
      primeCaches: () => Promise.resolve(cache.enabledPartners()).catch((error: unknown) => log.warn({ err: error }, 'warm-up: partner cache not primed')),
      makeExchange: (partner) => {
        const scratchMetrics = createMetrics({ defaultMetrics: false });
        const warmDispatcher = createDemandDispatcher({
          registry,
          clock,
          metrics: scratchMetrics,
          log,
          rates: () => rates.get(),
          ids,
          exchangeDomain: config.exchange.domain,
          maxResponseBytes: config.demand.maxResponseBytes,
          connectionsPerPartner: 8,
          tmaxMarginMs: config.auction.tmaxMarginMs,
        });
        const warmExchange = createExchange({
          dispatcher: warmDispatcher,
          partners: () => [partner],
          commit: async () => {},
          counters: { add() {} },
          notifier,
          tokens,
          metrics: scratchMetrics,
          clock,
          ids,
          rates: () => rates.get(),
          publicUrl: config.server.publicUrl,
          takeRate: config.auction.takeRate,
          prebidBidderCodes: config.prebid.bidderCodes,
        });
        return { exchange: warmExchange, close: () => warmDispatcher.close() };
      },
    });

  const app = await buildApp({
    config,
    log,
    clock,
    metrics,
    store,
    exchange,
    cache,
    shedder,
    storeHealth,
    notices,
    publishers,
    demandPartners,
    rates,
    webhookEndpoints,
    alertRules,
    reportScheduler,
    stats,
    series: counters,
    readiness: {
      store: () => storeHealth.probe(),
      dispatcher: async () => webhookDispatcher.running(),
      // Not ready until the bid path is warm (issue 15): a cold process misses tmax.
      warm: async () => warm,
    },
  });

  // While closing, answers carry `Connection: close`: a keep-alive connection whose request was
  // in flight at close() is then closed after its answer, instead of idling until its keep-alive
  // timeout and holding the server (and a SIGTERM drain) open.
  let closing = false;
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  let closed = false;
  return {
    app,
    store,
    metrics,
    config,
    async start() {
      counters.start();
      storeHealth.start();
      emitter.start();
      webhookDispatcher.start();
      reportScheduler.start();
      alertEvaluator.start();
      seriesRollup.start();
      const warmUpNow = async () => {
        try {
          const report = await warmUp();
          log.info({ ...report }, 'bid path warm');
        } catch (error) {
          // A bug in the bid path shows on live traffic too; serving cold beats never turning ready.
          log.error({ err: error }, 'warm-up failed; ready anyway');
        }
        warm = true;
      };
      // A cluster worker warms up before it listens: the primary hands connections to every worker
      // that listens, so a warming one would get live traffic while its siblings are ready.
      if (options.clusterWorkerIndex !== undefined) await warmUpNow();
      const url = await app.listen({ port: config.server.port, host: config.server.host });
      if (options.clusterWorkerIndex === undefined) await warmUpNow();
      return url;
    },
    async close() {
      if (closed) return;
      closed = true;
      closing = true;
      await app.close();
      shedder.stop();
      storeHealth.stop();
      await reportScheduler.stop();
      await alertEvaluator.stop();
      await seriesRollup.stop();
      await reportLeader.release();
      await alertLeader.release();
      await rollupLeader.release();
      await counters.stop();
      emitter.stop();
      await webhookDispatcher.stop();
      // After the dispatcher: its last attempt records go through this committer. No bid request
      // is running any more (the server closed first).
      await committer.close();
      await notifier.drain();
      await notifier.close();
      await dispatcher.close();
      await store.close();
    },
  };
}
