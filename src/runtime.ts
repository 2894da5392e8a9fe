/**
 * Builds a running exchange from a config: opens and migrates the store, resolves the secret
 * key, wires every service (STYLE 6-7), builds the app and, on `start()`, listens and starts the
 * background workers. `main.ts` and the tests use it; neither reads the other's globals.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createDemandPartnerService } from './admin/demand-partners.js';
import { createPublisherService } from './admin/publishers.js';
import { buildApp } from './app.js';
import { createExchange, type AuctionCommit } from './auction/exchange.js';
import type { Config } from './config/types.js';
import { createDemandDispatcher } from './demand/dispatch.js';
import { createAdapterRegistry } from './demand/registry.js';
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
import { createMetrics, type Metrics } from './observability/metrics.js';
import { createCounterAggregator } from './reporting/counters.js';
import { createGroupCommitter } from './storage/group-commit.js';
import { openStore } from './storage/open-store.js';
import type { Store } from './storage/ports.js';

/** Settings key of the generated secret key (DESIGN section 9). */
export const SECRET_KEY_SETTING = 'secret_key';

/** A built exchange: its app, store and lifecycle. */
export interface Runtime {
  app: FastifyInstance;
  store: Store;
  metrics: Metrics;
  config: Config;
  /** Listens on `config.server.port`/`host` and starts background work; answers the bound URL. */
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
}

/** Resolves the notice-signing secret: config, else the one kept in the store (generated once). */
async function resolveSecretKey(config: Config, store: Store): Promise<Buffer> {
  if (config.security.secretKey) return Buffer.from(config.security.secretKey, 'utf8');
  const stored = await store.settings.setIfAbsent(SECRET_KEY_SETTING, randomBytes(32).toString('base64url'));
  return Buffer.from(stored, 'utf8');
}

/** Builds the exchange. @throws when the store cannot be opened or migrated. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createIdGenerator();
  const store = options.store ?? (await openStore(config.storage.databaseUrl));
  await store.migrate();
  const secretKey = await resolveSecretKey(config, store);
  const metrics = createMetrics();

  const storedRates = await store.settings.get(RATES_SETTING);
  const rates = createRatesHolder(storedRates ? JSON.parse(storedRates) : (config.currency.rates ? { base: 'USD', ...config.currency.rates } : bundledRates));

  const cache = createConfigCache({ store, clock });
  const counters = createCounterAggregator({ store, clock, flushIntervalMs: config.storage.counterFlushIntervalMs, log });
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
  const committer = createGroupCommitter<AuctionCommit>({
    maxDelayMs: config.storage.groupCommitMaxDelayMs,
    write: async (commits) => {
      const bids = commits.flatMap((c) => c.bids);
      if (bids.length > 0) await store.bids.insertMany(bids);
    },
  });
  const exchange = createExchange({
    dispatcher,
    partners: () => cache.enabledPartners(),
    commit: (commit) => committer.submit(commit),
    counters,
    notifier,
    tokens,
    metrics,
    clock,
    ids,
    rates: () => rates.get(),
    publicUrl: config.server.publicUrl,
    takeRate: config.auction.takeRate,
    defaultAuctionType: config.auction.defaultAuctionType,
    prebidBidderCodes: config.prebid.bidderCodes,
  });
  const notices = createNoticeService({ store, clock, tokens, counters, notifier, metrics, log, rates: () => rates.get() });
  const onChange = () => cache.invalidate();
  const publishers = createPublisherService({ store, clock, ids, keyRotationGraceSeconds: config.security.keyRotationGraceSeconds, onChange });
  const demandPartners = createDemandPartnerService({ store, clock, ids, adapterCodes: registry.codes(), onChange });
  const shedder = createLoadShedder({ maxInFlight: config.overload.maxInFlight, maxEventLoopDelayMs: config.overload.maxEventLoopDelayMs });

  const app = await buildApp({
    config,
    log,
    clock,
    metrics,
    store,
    exchange,
    cache,
    shedder,
    notices,
    publishers,
    demandPartners,
    rates,
    readiness: {
      store: async () => {
        await store.ping();
        return true;
      },
    },
  });

  let closed = false;
  return {
    app,
    store,
    metrics,
    config,
    async start() {
      counters.start();
      return app.listen({ port: config.server.port, host: config.server.host });
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      shedder.stop();
      await committer.close();
      await counters.stop();
      await notifier.drain();
      await notifier.close();
      await dispatcher.close();
      await store.close();
    },
  };
}
