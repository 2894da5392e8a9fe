import { describe, expect, it } from 'vitest';
import {
  alertThresholdPayload,
  auctionCompletePayload,
  billingNoticePayload,
  reportDailyPayload,
  revenueMilestonePayload,
  webhookTestPayload,
} from '../../src/events/payloads.js';

/** 2026-01-02T03:04:05.678Z */
const nowMs = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe('event payloads (DESIGN section 6): exact fields, key order and units', () => {
  it('auction.complete: CPM decimals from micros, the winner currency', () => {
    const payload = auctionCompletePayload({
      auctionId: 'auc_1',
      requestId: 'req-from-supply',
      impId: '1',
      bidId: 'bid_1',
      publisherId: 'pub_1',
      seat: 'dsp_1',
      bidMicros: 2_500_000,
      clearingMicros: 1_010_000,
      currency: 'EUR',
      nowMs,
    });
    expect(JSON.stringify(payload)).toBe(
      '{"event":"auction.complete","auction_id":"auc_1","winning_bid":2.5,"currency":"EUR","timestamp":"2026-01-02T03:04:05.678Z",' +
        '"request_id":"req-from-supply","imp_id":"1","bid_id":"bid_1","publisher_id":"pub_1","seat":"dsp_1","clearing_price":1.01}',
    );
  });

  it('billing.notice: net price as a CPM decimal', () => {
    const payload = billingNoticePayload({ auctionId: 'auc_1', bidId: 'bid_1', publisherId: 'pub_1', seat: 'dsp_1', priceMicros: 1_234_567, currency: 'USD', nowMs });
    expect(JSON.stringify(payload)).toBe(
      '{"event":"billing.notice","auction_id":"auc_1","bid_id":"bid_1","publisher_id":"pub_1","seat":"dsp_1","price":1.234567,"currency":"USD","timestamp":"2026-01-02T03:04:05.678Z"}',
    );
  });

  it('webhook.test', () => {
    expect(JSON.stringify(webhookTestPayload('ep_1', nowMs))).toBe('{"event":"webhook.test","endpoint_id":"ep_1","timestamp":"2026-01-02T03:04:05.678Z"}');
  });

  it('report.daily: amounts (not CPM) from micros, ecpm as CPM, rates passed through, USD', () => {
    const payload = reportDailyPayload({
      date: '2026-01-01',
      publisherId: 'pub_1',
      requests: 10,
      imps: 20,
      bids: 8,
      wins: 4,
      impressions: 2,
      fillRate: 0.4,
      winRate: 0.5,
      revenueGrossMicros: 5_000,
      revenueNetMicros: 4_000,
      ecpmMicros: 2_000_000,
      nowMs,
    });
    expect(JSON.stringify(payload)).toBe(
      '{"event":"report.daily","date":"2026-01-01","publisher_id":"pub_1","currency":"USD","requests":10,"imps":20,"bids":8,"wins":4,"impressions":2,' +
        '"fill_rate":0.4,"win_rate":0.5,"revenue_gross":0.005,"revenue_net":0.004,"ecpm":2,"timestamp":"2026-01-02T03:04:05.678Z"}',
    );
  });

  it('alert.threshold: revenue from micros, fill rate as given, exchange-wide scope as null', () => {
    const revenue = alertThresholdPayload({
      alertId: 'alert_1',
      ruleId: 'rule_1',
      metric: 'revenue',
      comparator: 'below',
      thresholdMicros: 100_000_000,
      valueMicros: 12_340_000,
      windowMinutes: 60,
      publisherId: null,
      state: 'triggered',
      nowMs,
    });
    expect(JSON.stringify(revenue)).toBe(
      '{"event":"alert.threshold","alert_id":"alert_1","rule_id":"rule_1","metric":"revenue","comparator":"below","threshold":100,"value":12.34,' +
        '"window_minutes":60,"publisher_id":null,"state":"triggered","timestamp":"2026-01-02T03:04:05.678Z"}',
    );
    const fill = alertThresholdPayload({
      alertId: 'alert_2',
      ruleId: 'rule_2',
      metric: 'fill_rate',
      comparator: 'above',
      threshold: 0.5,
      value: 0.75,
      windowMinutes: 5,
      publisherId: 'pub_1',
      state: 'resolved',
      nowMs,
    });
    expect(JSON.stringify(fill)).toBe(
      '{"event":"alert.threshold","alert_id":"alert_2","rule_id":"rule_2","metric":"fill_rate","comparator":"above","threshold":0.5,"value":0.75,' +
        '"window_minutes":5,"publisher_id":"pub_1","state":"resolved","timestamp":"2026-01-02T03:04:05.678Z"}',
    );
  });

  it('revenue.milestone: amounts from micros, USD', () => {
    const payload = revenueMilestonePayload({ publisherId: 'pub_1', milestoneMicros: 100_000_000, revenueTotalMicros: 100_250_000, nowMs });
    expect(JSON.stringify(payload)).toBe(
      '{"event":"revenue.milestone","publisher_id":"pub_1","milestone":100,"revenue_total":100.25,"currency":"USD","timestamp":"2026-01-02T03:04:05.678Z"}',
    );
  });
});
