/**
 * The composition root of the HTTP surface (STYLE 6): `buildApp(deps)` builds the fastify app
 * from typed deps and lists every route. It does not listen; `main.ts` (through `runtime.ts`)
 * does. Tests build the app with their own deps and talk to it on an ephemeral port.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import type { Exchange } from './auction/exchange.js';
import type { Clock } from './domain/clock.js';
import type { RatesHolder } from './domain/rates-holder.js';
import { adminRoutes } from './http/admin/index.js';
import { createAdminAuthHook } from './http/admin/auth.js';
import { BID_PATH, bidRoutes } from './http/bid/route.js';
import { shedGateServerFactory } from './http/bid/shed-gate.js';
import type { ConfigCache } from './http/bid/config-cache.js';
import type { LoadShedder } from './http/bid/overload.js';
import { createRateLimiter } from './http/bid/rate-limiter.js';
import { currencyRoutes } from './http/currency/route.js';
import { sellersJsonRoutes } from './http/sellers/route.js';
import { webhookEndpointRoutes } from './http/admin/webhook-endpoints.js';
import type { WebhookEndpointService } from './admin/webhook-endpoints.js';
import type { AlertRuleService } from './admin/alert-rules.js';
import { alertRuleRoutes } from './http/admin/alert-rules.js';
import { reportRoutes } from './http/reports/routes.js';
import { statsSeriesRoutes } from './http/reports/series-route.js';
import { consoleRoutes, findConsoleDir } from './http/console/route.js';
import type { SeriesSink } from './reporting/series-sink.js';
import type { LiveStats } from './reporting/live-stats.js';
import type { ReportScheduler } from './reporting/report-scheduler.js';
import { healthRoutes, type ReadinessCheck } from './http/health/route.js';
import { noticeRoutes } from './http/notices/route.js';
import { installProblemHandlers } from './http/problem.js';
import type { PublisherService } from './admin/publishers.js';
import type { DemandPartnerService } from './admin/demand-partners.js';
import type { NoticeService } from './notices/notice-service.js';
import type { Metrics } from './observability/metrics.js';
import type { StoreHealth } from './observability/store-health.js';
import type { Config } from './config/types.js';
import type { Store } from './storage/ports.js';

/** Everything the HTTP app needs (built by `runtime.ts`, or by a test). */
export interface AppDeps {
  config: Config;
  log: Logger;
  clock: Clock;
  metrics: Metrics;
  store: Store;
  exchange: Exchange;
  cache: ConfigCache;
  shedder: LoadShedder;
  storeHealth: StoreHealth;
  notices: NoticeService;
  publishers: PublisherService;
  demandPartners: DemandPartnerService;
  rates: RatesHolder;
  webhookEndpoints: WebhookEndpointService;
  alertRules: AlertRuleService;
  reportScheduler: ReportScheduler;
  stats: LiveStats;
  /** Where the bid route counts the exchange latency histograms of the stored series. */
  series?: Pick<SeriesSink, 'observeLatency'>;
  /** The built console's folder (default: found beside the server, `findConsoleDir`). */
  consoleDir?: string;
  /** Readiness checks by name (`store`, `dispatcher`, ...). */
  readiness: Record<string, ReadinessCheck>;
}

/** Builds the fastify app with every route registered (DESIGN sections 2, 3, 7). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // No per-request logging: the bid path must not log at info level (metrics count requests).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimitBytes,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    return503OnClosing: true,
    keepAliveTimeout: 65_000,
    // Shed bid requests are answered before fastify (src/http/bid/shed-gate.ts).
    serverFactory: shedGateServerFactory({ path: BID_PATH, shedder: deps.shedder, onShed: (reason) => deps.metrics.shed.inc({ reason }) }),
  });
  installProblemHandlers(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'adx', description: 'OpenRTB 2.5 ad exchange: bid endpoint, notices and admin API', version: '0.1.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });

  await app.register(healthRoutes, { metrics: deps.metrics, checks: deps.readiness });
  await app.register(bidRoutes, {
    exchange: deps.exchange,
    cache: deps.cache,
    shedder: deps.shedder,
    metrics: deps.metrics,
    clock: deps.clock,
    bodyLimitBytes: config.server.bodyLimitBytes,
    defaultTmaxMs: config.auction.defaultTmaxMs,
    maxTmaxMs: config.auction.maxTmaxMs,
    browserPublisherLimiter: createRateLimiter({ perSecond: config.browser.publisherRequestsPerSecond, clock: deps.clock }),
    browserIpLimiter: createRateLimiter({ perSecond: config.browser.ipRequestsPerSecond, clock: deps.clock }),
    keyLimiter: createRateLimiter({ perSecond: config.browser.keyRequestsPerSecond, clock: deps.clock }),
    storeHealthy: () => deps.storeHealth.healthy(),
    stats: deps.stats,
    series: deps.series,
  });
  await app.register(noticeRoutes, { notices: deps.notices, metrics: deps.metrics });
  await app.register(sellersJsonRoutes, { publishers: deps.store.publishers, contactEmail: config.exchange.contactEmail, contactAddress: config.exchange.contactAddress });
  await app.register(adminRoutes, { publishers: deps.publishers, demandPartners: deps.demandPartners, adminKey: config.security.adminKey });
  await app.register(webhookEndpointRoutes, { service: deps.webhookEndpoints, adminKey: config.security.adminKey });
  await app.register(alertRuleRoutes, { service: deps.alertRules, adminKey: config.security.adminKey });
  await app.register(reportRoutes, { scheduler: deps.reportScheduler, stats: deps.stats, adminKey: config.security.adminKey });
  await app.register(statsSeriesRoutes, { store: deps.store, adminKey: config.security.adminKey });
  await app.register(consoleRoutes, { dir: deps.consoleDir ?? findConsoleDir() });
  await app.register(currencyRoutes, {
    rates: deps.rates,
    settings: deps.store.settings,
    adminAuth: createAdminAuthHook(config.security.adminKey),
  });
  return app;
}
