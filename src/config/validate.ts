/**
 * Config validation that reports every problem at once (STYLE 11, after Prebid Server's
 * `config.validate()`). Answers a list of `key: problem` strings; empty means valid.
 */
import { isMediaType } from '../domain/media-type.js';
import { CURRENCY_CODE } from '../domain/currency.js';
import type { Config } from './types.js';

function positiveInt(problems: string[], key: string, value: unknown, allowZero = false): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || (!allowZero && value === 0)) {
    problems.push(`${key}: must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${JSON.stringify(value)}`);
  }
}

/** Every problem in `config`, as `key: message` lines. */
export function validateConfig(config: Config): string[] {
  const problems: string[] = [];
  positiveInt(problems, 'server.port', config.server.port, true);
  if (config.server.port > 65535) problems.push('server.port: must be at most 65535');
  if (typeof config.server.host !== 'string' || config.server.host === '') problems.push('server.host: must be a non-empty string');
  try {
    const url = new URL(config.server.publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('server.publicUrl: must be an http(s) URL');
  } catch {
    problems.push(`server.publicUrl: ${JSON.stringify(config.server.publicUrl)} is not a URL`);
  }
  positiveInt(problems, 'server.bodyLimitBytes', config.server.bodyLimitBytes);
  positiveInt(problems, 'server.warmUpAuctions', config.server.warmUpAuctions, true);
  positiveInt(problems, 'server.heapGrowingPercent', config.server.heapGrowingPercent, true);
  if (config.server.heapGrowingPercent > 1000) problems.push('server.heapGrowingPercent: must be at most 1000');
  if (typeof config.storage.databaseUrl !== 'string' || config.storage.databaseUrl === '') problems.push('storage.databaseUrl: must be a non-empty string');
  positiveInt(problems, 'storage.counterFlushIntervalMs', config.storage.counterFlushIntervalMs);
  positiveInt(problems, 'storage.groupCommitMaxDelayMs', config.storage.groupCommitMaxDelayMs, true);
  positiveInt(problems, 'security.keyRotationGraceSeconds', config.security.keyRotationGraceSeconds, true);
  positiveInt(problems, 'auction.defaultTmaxMs', config.auction.defaultTmaxMs);
  positiveInt(problems, 'auction.maxTmaxMs', config.auction.maxTmaxMs);
  positiveInt(problems, 'auction.tmaxMarginMs', config.auction.tmaxMarginMs, true);
  const take = config.auction.takeRate;
  if (typeof take !== 'number' || !(take >= 0 && take < 1)) problems.push(`auction.takeRate: must be a number in [0, 1), got ${JSON.stringify(take)}`);
  if ((config.auction as unknown as Record<string, unknown>).defaultAuctionType !== undefined) {
    problems.push('auction.defaultAuctionType: removed; the auction type is per publisher (auction_type, default 1 first price)');
  }
  positiveInt(problems, 'demand.maxResponseBytes', config.demand.maxResponseBytes);
  positiveInt(problems, 'demand.connectionsPerPartner', config.demand.connectionsPerPartner);
  positiveInt(problems, 'notices.maxAgeSeconds', config.notices.maxAgeSeconds);
  positiveInt(problems, 'notices.partnerCallAttempts', config.notices.partnerCallAttempts);
  positiveInt(problems, 'notices.partnerCallTimeoutMs', config.notices.partnerCallTimeoutMs);
  positiveInt(problems, 'overload.maxInFlight', config.overload.maxInFlight);
  positiveInt(problems, 'overload.initialLimit', config.overload.initialLimit, true);
  positiveInt(problems, 'overload.maxEventLoopDelayMs', config.overload.maxEventLoopDelayMs);
  positiveInt(problems, 'overload.eventLoopDelaySustainMs', config.overload.eventLoopDelaySustainMs);
  if (config.currency.rates !== null) {
    const table = config.currency.rates;
    if (typeof table !== 'object' || !/^\d{4}-\d{2}-\d{2}$/.test(String(table.date))) problems.push('currency.rates.date: must be YYYY-MM-DD');
    for (const [code, rate] of Object.entries(table?.rates ?? {})) {
      if (!CURRENCY_CODE.test(code)) problems.push(`currency.rates.rates.${code}: not a three-letter currency code`);
      if (typeof rate !== 'number' || !(rate > 0)) problems.push(`currency.rates.rates.${code}: must be a positive number`);
    }
  }
  if (!Array.isArray(config.prebid.bidderCodes) || config.prebid.bidderCodes.some((c) => typeof c !== 'string' || c === '')) {
    problems.push('prebid.bidderCodes: must be an array of non-empty strings');
  }
  positiveInt(problems, 'browser.keyRequestsPerSecond', config.browser.keyRequestsPerSecond, true);
  positiveInt(problems, 'browser.publisherRequestsPerSecond', config.browser.publisherRequestsPerSecond, true);
  positiveInt(problems, 'browser.ipRequestsPerSecond', config.browser.ipRequestsPerSecond, true);
  const r = config.reporting;
  positiveInt(problems, 'reporting.alertIntervalMs', r.alertIntervalMs);
  positiveInt(problems, 'reporting.alertMinImps', r.alertMinImps, true);
  positiveInt(problems, 'reporting.reportDelayMs', r.reportDelayMs, true);
  positiveInt(problems, 'reporting.checkIntervalMs', r.checkIntervalMs);
  positiveInt(problems, 'reporting.seriesMinuteRetentionDays', r.seriesMinuteRetentionDays);
  positiveInt(problems, 'reporting.seriesRollupIntervalMs', r.seriesRollupIntervalMs);
  if (!Array.isArray(r.revenueMilestones) || r.revenueMilestones.some((a) => typeof a !== 'number' || !(a > 0))) {
    problems.push('reporting.revenueMilestones: must be a list of positive amounts');
  }
  const w = config.webhooks;
  if (typeof w.allowPrivateTargets !== 'boolean') problems.push('webhooks.allowPrivateTargets: must be true or false');
  if (!Array.isArray(w.retryScheduleMs) || w.retryScheduleMs.length === 0 || w.retryScheduleMs.some((d) => !Number.isInteger(d) || d < 0)) {
    problems.push('webhooks.retryScheduleMs: must be a non-empty list of non-negative integers (ms)');
  }
  positiveInt(problems, 'webhooks.pollIntervalMs', w.pollIntervalMs);
  positiveInt(problems, 'webhooks.leaseMs', w.leaseMs);
  positiveInt(problems, 'webhooks.attemptTimeoutMs', w.attemptTimeoutMs);
  positiveInt(problems, 'webhooks.perEndpointConcurrency', w.perEndpointConcurrency);
  positiveInt(problems, 'webhooks.disableAfterFailingMs', w.disableAfterFailingMs);
  positiveInt(problems, 'webhooks.rotationOverlapMs', w.rotationOverlapMs);
  (config.seed?.publishers ?? []).forEach((p, i) => {
    if (p.auction_type !== undefined && p.auction_type !== 1 && p.auction_type !== 2) {
      problems.push(`seed.publishers[${i}].auction_type: must be 1 (first price) or 2 (second price plus)`);
    }
    if (p.reserve_price !== undefined && !(typeof p.reserve_price === 'number' && p.reserve_price >= 0 && p.reserve_price <= 1_000_000)) {
      problems.push(`seed.publishers[${i}].reserve_price: must be a CPM in USD between 0 and 1000000`);
    }
    if (p.seller_type !== undefined && p.seller_type !== 'PUBLISHER' && p.seller_type !== 'INTERMEDIARY' && p.seller_type !== 'BOTH') {
      problems.push(`seed.publishers[${i}].seller_type: must be PUBLISHER, INTERMEDIARY or BOTH`);
    }
    if (p.is_confidential !== undefined && typeof p.is_confidential !== 'boolean') problems.push(`seed.publishers[${i}].is_confidential: must be true or false`);
  });
  // Issue 12 (privacy): partner OpenRTB version and TCF vendor id.
  (config.seed?.demand_partners ?? []).forEach((d, i) => {
    if (d.openrtb_version !== undefined && d.openrtb_version !== '2.5' && d.openrtb_version !== '2.6') {
      problems.push(`seed.demand_partners[${i}].openrtb_version: must be '2.5' or '2.6'`);
    }
    if (d.gvl_vendor_id !== undefined && d.gvl_vendor_id !== null && !(Number.isInteger(d.gvl_vendor_id) && d.gvl_vendor_id >= 1 && d.gvl_vendor_id <= 65535)) {
      problems.push(`seed.demand_partners[${i}].gvl_vendor_id: must be null or an integer from 1 to 65535`);
    }
  });
  if (typeof config.exchange.contactEmail !== 'string' || (config.exchange.contactEmail !== '' && !/^[^\s@]+@[^\s@]+$/.test(config.exchange.contactEmail))) {
    problems.push('exchange.contactEmail: must be an e-mail address or empty');
  }
  if (typeof config.exchange.contactAddress !== 'string') problems.push('exchange.contactAddress: must be a string');
  (config.seed?.demand_partners ?? []).forEach((d, i) => {
    const types: unknown = d.media_types;
    if (types !== undefined && !(Array.isArray(types) && types.length > 0 && types.every(isMediaType) && new Set(types).size === types.length)) {
      problems.push(`seed.demand_partners[${i}].media_types: must be a non-empty list of distinct values among banner, video, audio, native`);
    }
  });
  return problems;
}
