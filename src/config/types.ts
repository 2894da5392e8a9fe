/**
 * The exchange's configuration, as one typed object. Defaults live in `defaults.ts`; a seed
 * config file (`ADX_CONFIG`, JSON or YAML) and environment variables override them (`load.ts`);
 * `validate.ts` reports every problem at once. README "Configuration" lists every key and its
 * environment variable.
 */
export interface Config {
  server: {
    /** TCP port (`PORT`). */
    port: number;
    /** Bind address (`HOST`). */
    host: string;
    /** Base URL for notice URLs and the impression pixel (`ADX_PUBLIC_URL`); default `http://HOST:PORT`. */
    publicUrl: string;
    /** Decompressed request body limit in bytes (DESIGN section 2: 64 KiB). */
    bodyLimitBytes: number;
    /** Synthetic auctions (loopback bidder, nothing stored) run at start before `/readyz` turns 200; 0 = only prime caches. */
    warmUpAuctions: number;
    /**
     * V8's old-generation growing factor as 1 + N/100 (`ADX_HEAP_GROWING_PERCENT`; `heap-growth.ts`):
     * how much garbage the heap may hold before a full collection. 0 (default) = V8's own (up to 4x
     * the live heap); a lower factor (e.g. 150) trades more full collections for a lower peak RSS. Ignored
     * when node's flags set `--heap-growing-percent` or `--max-old-space-size`.
     */
    heapGrowingPercent: number;
  };
  storage: {
    /** File path for SQLite or a `postgres://` URL (`DATABASE_URL`). */
    databaseUrl: string;
    /** How often in-memory counters are flushed to the store, ms. */
    counterFlushIntervalMs: number;
    /** Longest wait before a group commit is written, ms (bid records, outbox rows). */
    groupCommitMaxDelayMs: number;
  };
  security: {
    /** Admin API Bearer key (`ADX_ADMIN_KEY`); when empty the admin API refuses every call. */
    adminKey: string;
    /** Secret key signing notice tokens (`ADX_SECRET_KEY`); empty = generated once and kept in the store. */
    secretKey: string;
    /** Seconds an old publisher API key stays valid after `POST /v1/publishers/{id}/keys`. */
    keyRotationGraceSeconds: number;
  };
  exchange: {
    /** The exchange's domain, `asi` of its supply chain node (DESIGN section 5). */
    domain: string;
    /** sellers.json `contact_email` (`ADX_CONTACT_EMAIL`); '' = left out (DESIGN section 11). */
    contactEmail: string;
    /** sellers.json `contact_address` (`ADX_CONTACT_ADDRESS`); '' = left out. */
    contactAddress: string;
  };
  auction: {
    /** Default `tmax` in ms when the request has none. */
    defaultTmaxMs: number;
    /** Upper clamp for `tmax`, ms. */
    maxTmaxMs: number;
    /** Budget kept back from the partners' share of tmax, ms (network and our own work). */
    tmaxMarginMs: number;
    /** Exchange take rate in [0, 1): publisher price = clearing x (1 - takeRate). */
    takeRate: number;
  };
  demand: {
    /** A partner response larger than this many bytes is dropped. */
    maxResponseBytes: number;
    /** Keep-alive connections per partner origin (undici pool size). */
    connectionsPerPartner: number;
  };
  notices: {
    /** A notice token older than this answers 410. */
    maxAgeSeconds: number;
    /** Attempts for each call to a partner's nurl/burl/lurl (fire-and-forget). */
    partnerCallAttempts: number;
    /** Timeout per partner notice call, ms. */
    partnerCallTimeoutMs: number;
  };
  overload: {
    /** Requests in flight above which new bid requests are shed (204 at once); the adaptive limit's ceiling. */
    maxInFlight: number;
    /**
     * Starting value of the adaptive in-flight limit, which then follows how close admitted
     * answers come to their tmax (`http/bid/overload.ts`); 0 turns it off (only `maxInFlight`).
     */
    initialLimit: number;
    /** Event-loop delay (p99 over the last sample window, ms) above which bid requests are shed. */
    maxEventLoopDelayMs: number;
    /** How long the event-loop delay must stay above `maxEventLoopDelayMs` before bid requests are shed, ms. */
    eventLoopDelaySustainMs: number;
  };
  currency: {
    /** Replacement rates table (units per 1 USD), or null for the bundled one. */
    rates: { date: string; rates: Record<string, number> } | null;
  };
  prebid: {
    /** Bidder codes the exchange answers to (DESIGN section 2, browser supply). */
    bidderCodes: string[];
  };
  browser: {
    /**
     * Server-to-server (Bearer) bid requests per second per API key; 0 (default) = not limited
     * (DESIGN section 2: Bearer clients are limited only when the operator sets a per-key limit).
     */
    keyRequestsPerSecond: number;
    /** Browser bid requests per second per publisher (0 = no limit). */
    publisherRequestsPerSecond: number;
    /** Browser bid requests per second per client IP, the socket address (0 = no limit). */
    ipRequestsPerSecond: number;
  };
  webhooks: {
    /** Allow http and loopback/private targets (`ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1`); demo and tests only. */
    allowPrivateTargets: boolean;
    /** Retry schedule: entry k = wait before attempt k, ms (`ADX_WEBHOOK_RETRY_SCHEDULE_MS`, comma-separated). */
    retryScheduleMs: number[];
    /** How often the dispatcher looks for due messages when not woken, ms. */
    pollIntervalMs: number;
    /** Claim lease, ms (PostgreSQL: another node may take over after it). */
    leaseMs: number;
    /** Timeout of one delivery attempt, ms (DESIGN section 6: 15 s). */
    attemptTimeoutMs: number;
    /** Deliveries in flight per endpoint, so a slow endpoint never delays the others. */
    perEndpointConcurrency: number;
    /** An endpoint failing without a success this long is disabled, ms (5 days). */
    disableAfterFailingMs: number;
    /** How long an old secret keeps signing after a rotation, ms (24 h). */
    rotationOverlapMs: number;
  };
  reporting: {
    /** How often alert rules are evaluated, ms (`ADX_ALERT_INTERVAL_MS`). */
    alertIntervalMs: number;
    /** A fill-rate rule with fewer imps than this in its window does not change state. */
    alertMinImps: number;
    /** Cumulative net revenue milestones, USD amounts (`ADX_REVENUE_MILESTONES`, comma-separated). */
    revenueMilestones: number[];
    /** Wait after a UTC day closes before its report.daily goes out, ms. */
    reportDelayMs: number;
    /** How often the report scheduler checks for closed UTC days, ms. */
    checkIntervalMs: number;
    /**
     * Days the stored series keep minute resolution (`ADX_SERIES_MINUTE_RETENTION_DAYS`, default
     * 35); older minute rows are rolled up into hour rows, kept without limit (DESIGN section 7).
     */
    seriesMinuteRetentionDays: number;
    /** How often the roll-up of old minute rows runs, ms (on the cluster leader). */
    seriesRollupIntervalMs: number;
  };
  log: {
    /** pino level (`LOG_LEVEL`). */
    level: string;
  };
  /** Seed: publishers and partners created at start when the store has none with those names. */
  seed: SeedConfig | null;
}

/** Seed data (the bundled demo seed, or an operator's `ADX_CONFIG` file's `seed` section). */
export interface SeedConfig {
  publishers: Array<{
    name: string;
    domain?: string;
    domains?: string[];
    browser_access?: boolean;
    api_key?: string;
    /** 1 first price (default), 2 second price plus (DESIGN section 4). */
    auction_type?: 1 | 2;
    /** Reserve price, CPM in USD (default 0). */
    reserve_price?: number;
    /** sellers.json seller_type (default PUBLISHER). */
    seller_type?: 'PUBLISHER' | 'INTERMEDIARY' | 'BOTH';
    /** sellers.json is_confidential (default false). */
    is_confidential?: boolean;
  }>;
  demand_partners: Array<{
    name: string;
    endpoint?: string;
    adapter?: string;
    timeout_ms?: number;
    gzip?: boolean;
    qps_limit?: number | null;
    currency?: string;
    enabled?: boolean;
    /** '2.5' (default) or '2.6' (DESIGN section 5). */
    openrtb_version?: '2.5' | '2.6';
    /** IAB TCF Global Vendor List id (default none; DESIGN section 11). */
    gvl_vendor_id?: number | null;
    /** Media types the partner takes (banner, video, audio, native); default all four. */
    media_types?: Array<'banner' | 'video' | 'audio' | 'native'>;
    /** Demo only: start a simulated DSP on loopback with these options and use its URL as endpoint. */
    simulate?: Record<string, unknown>;
  }>;
}
