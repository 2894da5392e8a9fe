import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { createPartnerNotifier, type PartnerNotifier, type PartnerNotifierDeps } from '../../src/notices/partner-notifier.js';
import { counterValue, startFakePartner, unusedPort, type FakePartner } from './helpers.js';

describe('partner notifier', () => {
  let partner: FakePartner;
  let metrics: Metrics;
  const notifiers: PartnerNotifier[] = [];

  function notifier(overrides: Partial<PartnerNotifierDeps> = {}): PartnerNotifier {
    const n = createPartnerNotifier({ clock: systemClock, metrics, log: silentLogger(), attempts: 3, timeoutMs: 2000, retryDelayMs: 5, ...overrides });
    notifiers.push(n);
    return n;
  }

  const outcome = (kind: string, value: 'ok' | 'failed'): Promise<number> => counterValue(metrics.partnerNotices, { kind, outcome: value });

  beforeEach(async () => {
    partner = await startFakePartner();
    metrics = createMetrics();
  });

  afterEach(async () => {
    await Promise.all(notifiers.splice(0).map((n) => n.close()));
    await partner.close();
  });

  it('GETs the URL as given and counts ok', async () => {
    const n = notifier();
    const result = n.fire('nurl', `${partner.baseUrl}/win?price=1.23&id=a%20b`);
    expect(result).toBeUndefined();
    await n.drain();
    expect(partner.calls).toEqual([{ method: 'GET', url: '/win?price=1.23&id=a%20b' }]);
    expect(await outcome('nurl', 'ok')).toBe(1);
    expect(await outcome('nurl', 'failed')).toBe(0);
  });

  it('retries after a 5xx, then succeeds', async () => {
    partner.statuses = [500, 200];
    const n = notifier();
    n.fire('burl', `${partner.baseUrl}/bill`);
    await n.drain();
    expect(partner.calls.map((c) => c.url)).toEqual(['/bill', '/bill']);
    expect(await outcome('burl', 'ok')).toBe(1);
    expect(await outcome('burl', 'failed')).toBe(0);
  });

  it('gives up after `attempts` attempts and counts one failure', async () => {
    partner.statuses = [503];
    const n = notifier({ attempts: 3 });
    n.fire('lurl', `${partner.baseUrl}/loss`);
    await n.drain();
    expect(partner.calls).toHaveLength(3);
    expect(await outcome('lurl', 'failed')).toBe(1);
    expect(await outcome('lurl', 'ok')).toBe(0);
  });

  it('does not retry a 4xx', async () => {
    partner.statuses = [404, 200];
    const n = notifier();
    n.fire('nurl', `${partner.baseUrl}/gone`);
    await n.drain();
    expect(partner.calls).toHaveLength(1);
    expect(await outcome('nurl', 'failed')).toBe(1);
  });

  it('counts a redirect as delivered and does not follow it', async () => {
    partner.statuses = [302];
    const n = notifier();
    n.fire('nurl', `${partner.baseUrl}/r`);
    await n.drain();
    expect(partner.calls.map((c) => c.url)).toEqual(['/r']);
    expect(await outcome('nurl', 'ok')).toBe(1);
  });

  it('retries network errors and never throws or rejects', async () => {
    const port = await unusedPort();
    const n = notifier({ attempts: 2 });
    expect(() => n.fire('nurl', `http://127.0.0.1:${port}/win`)).not.toThrow();
    await expect(n.drain()).resolves.toBeUndefined();
    expect(await outcome('nurl', 'failed')).toBe(1);
  });

  it('fails an attempt that exceeds timeoutMs', async () => {
    partner.statuses = ['hang'];
    const n = notifier({ attempts: 1, timeoutMs: 100 });
    n.fire('burl', `${partner.baseUrl}/slow`);
    await n.drain();
    expect(partner.calls).toHaveLength(1);
    expect(await outcome('burl', 'failed')).toBe(1);
  });

  it('drops URLs that are not http(s) without calling anything', async () => {
    const n = notifier();
    for (const url of ['ftp://127.0.0.1/x', 'javascript:alert(1)', 'not a url', '', 'file:///etc/passwd']) {
      expect(() => n.fire('nurl', url)).not.toThrow();
    }
    await n.drain();
    expect(partner.calls).toHaveLength(0);
    expect(await outcome('nurl', 'failed')).toBe(5);
  });

  it('close() abandons pending retries, and later fires are dropped', async () => {
    partner.statuses = [500];
    const n = notifier({ attempts: 5, retryDelayMs: 60_000 });
    n.fire('nurl', `${partner.baseUrl}/win`);
    await partner.waitForCalls(1);
    await n.close();
    expect(partner.calls).toHaveLength(1);
    expect(await outcome('nurl', 'failed')).toBe(1);
    expect(() => n.fire('nurl', `${partner.baseUrl}/later`)).not.toThrow();
    expect(await outcome('nurl', 'failed')).toBe(2);
    expect(partner.calls).toHaveLength(1);
  });

  it('runs calls concurrently and drain() waits for all of them', async () => {
    const n = notifier();
    for (let i = 0; i < 20; i++) n.fire('nurl', `${partner.baseUrl}/win/${i}`);
    await n.drain();
    expect(partner.calls).toHaveLength(20);
    expect(await outcome('nurl', 'ok')).toBe(20);
  });
});
