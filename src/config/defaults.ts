import type { Config } from './types.js';

/** Every default in one place (STYLE 11). Environment and config files override these. */
export const defaults = {
  server: {
    port: 8080,
    host: '127.0.0.1',
    publicUrl: '', // empty: http://HOST:PORT
    bodyLimitBytes: 64 * 1024, // DESIGN section 2
    // Synthetic auctions run before /readyz turns 200 (issue 15: a cold process misses tmax).
    warmUpAuctions: 300,
    // Issue 15: 0 = V8's own factor (up to 4); the bench peaks at 170-250 MiB with it. A lower
    // factor (e.g. 150) trims RSS for more full collections (docs/performance.md): an operator's choice.
    heapGrowingPercent: 0,
  },
  storage: {
    databaseUrl: './data/adx.db',
    counterFlushIntervalMs: 1000,
    groupCommitMaxDelayMs: 2,
  },
  security: {
    adminKey: '',
    secretKey: '',
    keyRotationGraceSeconds: 24 * 3600,
  },
  exchange: {
    domain: 'adx.example',
    contactEmail: '',
    contactAddress: '',
  },
  auction: {
    defaultTmaxMs: 100, // DESIGN section 2
    maxTmaxMs: 1000,
    tmaxMarginMs: 20,
    takeRate: 0,
  },
  demand: {
    maxResponseBytes: 1024 * 1024, // DESIGN section 5
    connectionsPerPartner: 64,
  },
  notices: {
    maxAgeSeconds: 24 * 3600, // DESIGN section 3
    partnerCallAttempts: 3,
    partnerCallTimeoutMs: 2000,
  },
  overload: {
    maxInFlight: 2000,
    // Where the adaptive concurrency limit starts (0 = off); it settles within a second of load.
    initialLimit: 100,
    // p99 event-loop delay at which a 100 ms deadline is at risk (margin 20 ms + our own work).
    maxEventLoopDelayMs: 30,
    // One pause (GC, start-up compile) is not overload: the delay must last this long to shed.
    eventLoopDelaySustainMs: 500,
  },
  currency: {
    rates: null,
  },
  prebid: {
    bidderCodes: ['adx'],
  },
  browser: {
    keyRequestsPerSecond: 0, // Bearer clients: no limit unless the operator sets one
    publisherRequestsPerSecond: 50, // DESIGN section 2
    ipRequestsPerSecond: 20,
  },
  webhooks: {
    allowPrivateTargets: false,
    // DESIGN section 6: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (+-20% jitter)
    retryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
    pollIntervalMs: 250,
    leaseMs: 30_000,
    attemptTimeoutMs: 15_000,
    // Issue 15: at 8, one endpoint took ~1,000 deliveries/s on loopback, below the auction rate
    // of a busy exchange; the backlog then grows without bound. Each attempt is mostly waiting.
    perEndpointConcurrency: 32,
    disableAfterFailingMs: 5 * 24 * 3600 * 1000,
    rotationOverlapMs: 24 * 3600 * 1000,
  },
  reporting: {
    alertIntervalMs: 60_000, // DESIGN section 9
    alertMinImps: 1,
    revenueMilestones: [100, 1000, 10000, 100000], // DESIGN section 9
    reportDelayMs: 5 * 60_000,
    checkIntervalMs: 60_000,
    seriesMinuteRetentionDays: 35, // DESIGN section 7: minutes kept 35 days, hours beyond
    seriesRollupIntervalMs: 3_600_000,
  },
  log: {
    level: 'info',
  },
  seed: null,
} satisfies Config;
