import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createIdGenerator } from '../../src/domain/ids.js';
import { createNoticeTokenCodec } from '../../src/notices/token.js';

const bodyOf = (id: string) => Buffer.from(id.slice(id.indexOf('_') + 1), 'base64url');

describe('createIdGenerator', () => {
  it('mints <kind>_<22 base64url chars> whose first 6 bytes are the clock time, big-endian', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 12, 0, 0));
    const ids = createIdGenerator(clock);
    const id = ids.next('bid');
    expect(id).toMatch(/^bid_[A-Za-z0-9_-]{22}$/);
    expect(bodyOf(id).readUIntBE(0, 6)).toBe(clock.now());
    clock.advance(1234);
    expect(bodyOf(ids.next('msg')).readUIntBE(0, 6)).toBe(clock.now());
  });

  it('ids minted in the same second share their prefix (B-tree locality) and never repeat', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 12, 0, 0));
    const ids = createIdGenerator(clock);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      if (i % 100 === 0) clock.advance(1);
      seen.add(ids.next('bid'));
    }
    expect(seen.size).toBe(20_000);
    // 200 ms of ids: the first 38 bits of time are constant within a 1,024 ms window here.
    const windows = new Set([...seen].map((id) => Math.floor(bodyOf(id).readUIntBE(0, 6) / 1024)));
    expect(windows.size).toBeLessThanOrEqual(2);
    const firstSixChars = new Set([...seen].map((id) => id.slice(4, 10)));
    expect(firstSixChars.size).toBeLessThanOrEqual(2);
    // The random part differs between ids of one millisecond.
    const sameMs = [...seen].slice(0, 100).map((id) => bodyOf(id).subarray(6).toString('hex'));
    expect(new Set(sameMs).size).toBe(100);
  });

  it('ids pack into notice tokens as 16 raw bytes (DESIGN section 3)', () => {
    const ids = createIdGenerator();
    const codec = createNoticeTokenCodec({ secretKey: Buffer.from('k'.repeat(32)), maxAgeSeconds: 60 });
    const payload = {
      auctionId: ids.next('auc'),
      impId: '1',
      bidId: ids.next('bid'),
      partnerId: ids.next('dsp'),
      publisherId: ids.next('pub'),
      netMicros: 1,
      currency: 'USD',
      netUsdMicros: 1,
      grossUsdMicros: 1,
      issuedAtMs: Date.now(),
    };
    const verified = codec.verify(codec.sign(payload), payload.issuedAtMs);
    expect(verified).toEqual({ ok: true, payload });
  });
});
