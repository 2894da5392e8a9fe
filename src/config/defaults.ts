import type { Config } from './types.js';

/** Every default in one place (STYLE 11). Environment and config files override these. */
export const defaults = {
  server: {
    port: 8080,
    host: '127.0.0.1',
    publicUrl: '', // empty: http://HOST:PORT
    bodyLimitBytes: 64 * 1024, // DESIGN section 2
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
  },
  auction: {
    defaultTmaxMs: 100, // DESIGN section 2
    maxTmaxMs: 1000,
    tmaxMarginMs: 20,
    takeRate: 0,
    defaultAuctionType: 2,
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
    maxEventLoopDelayMs: 50,
  },
  currency: {
    rates: null,
  },
  prebid: {
    bidderCodes: ['adx'],
  },
  log: {
    level: 'info',
  },
  seed: null,
} satisfies Config;
