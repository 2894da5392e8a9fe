import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createIdGenerator } from '../../src/domain/ids.js';
import { createNoticeTokenCodec, MAX_TOKEN_CHARS } from '../../src/notices/token.js';
import type { NoticeTokenPayload } from '../../src/notices/types.js';

const secretKey = Buffer.from('0123456789abcdef0123456789abcdef');
const maxAgeSeconds = 24 * 3600;
const ids = createIdGenerator();
const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));

function payload(overrides: Partial<NoticeTokenPayload> = {}): NoticeTokenPayload {
  return {
    auctionId: ids.next('auc'),
    impId: '1',
    bidId: ids.next('bid'),
    partnerId: ids.next('dsp'),
    publisherId: ids.next('pub'),
    netMicros: 1_230_000,
    currency: 'EUR',
    netUsdMicros: 1_337_000,
    grossUsdMicros: 1_500_000,
    issuedAtMs: clock.now(),
    ...overrides,
  };
}

const codec = createNoticeTokenCodec({ secretKey, maxAgeSeconds });
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('notice token codec', () => {
  it('round-trips a payload with exchange ids', () => {
    const p = payload();
    const result = codec.verify(codec.sign(p), clock.now());
    expect(result).toEqual({ ok: true, payload: p });
  });

  it('round-trips arbitrary strings and integers (ids that are not exchange ids, unicode, empty)', () => {
    const p = payload({ auctionId: 'auc_short', impId: 'slot é/&?=#%', bidId: 'bid_1', partnerId: 'demo-dsp', publisherId: '', netMicros: 0, netUsdMicros: Number.MAX_SAFE_INTEGER, grossUsdMicros: 0 });
    expect(codec.verify(codec.sign(p), clock.now())).toEqual({ ok: true, payload: p });
  });

  it('round-trips any encodable payload (property)', () => {
    const str = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...['auc', 'bid', 'req', 'resp', 'pub', 'dsp', 'msg', 'ep', 'key', 'rule', 'alert', 'zzz'].map((k) => `${k}_${ids.next('auc').slice(4)}`)));
    const int = fc.maxSafeNat();
    fc.assert(
      fc.property(str, str, str, str, str, int, int, int, fc.integer({ min: 0, max: clock.now() }), fc.constantFrom('USD', 'EUR', 'JPY'), (auctionId, impId, bidId, partnerId, publisherId, netMicros, netUsdMicros, grossUsdMicros, issuedAtMs, currency) => {
        // Lone surrogates cannot survive UTF-8; the auction only sees strings parsed from JSON text.
        const clean = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');
        const p: NoticeTokenPayload = { auctionId: clean(auctionId), impId: clean(impId), bidId: clean(bidId), partnerId: clean(partnerId), publisherId: clean(publisherId), netMicros, netUsdMicros, grossUsdMicros, issuedAtMs, currency };
        const token = codec.sign(p);
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(codec.verify(token, issuedAtMs)).toEqual({ ok: true, payload: p });
      }),
      { numRuns: 300 },
    );
  });

  it('is short for typical exchange ids and URL-safe as it is', () => {
    const token = codec.sign(payload());
    expect(token.length).toBeLessThanOrEqual(150);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeURIComponent(token)).toBe(token);
    expect(encodeURIComponent(token)).toBe(token);
    // The URL Prebid.js fires after decoding still carries a verifiable token.
    const nurl = `https://adx.example/v1/notice/win?t=${token}&price=\${AUCTION_PRICE}`;
    const fired = new URL(decodeURIComponent(nurl));
    expect(codec.verify(fired.searchParams.get('t') ?? '', clock.now()).ok).toBe(true);
  });

  it('rejects every single-character change anywhere in the token', () => {
    const token = codec.sign(payload());
    let checked = 0;
    for (let i = 0; i < token.length; i++) {
      for (const c of BASE64URL) {
        if (c === token[i]) continue;
        const altered = token.slice(0, i) + c + token.slice(i + 1);
        const result = codec.verify(altered, clock.now());
        expect(result.ok, `position ${i} -> ${c}`).toBe(false);
        if (!result.ok) expect(['forged', 'malformed']).toContain(result.reason);
        checked++;
      }
    }
    expect(checked).toBe(token.length * 63);
  });

  it('answers forged for a payload altered under a valid encoding', () => {
    const token = codec.sign(payload({ netMicros: 1_000_000 }));
    const raw = Buffer.from(token, 'base64url');
    // Byte 1 starts the issuedAtMs varint; flip a low bit of it and keep the old tag.
    raw[1] = (raw[1] ?? 0) ^ 0x01;
    expect(codec.verify(raw.toString('base64url'), clock.now())).toEqual({ ok: false, reason: 'forged' });
  });

  it('answers forged for a token signed with another key, or with the raw secret instead of the derived key', () => {
    const other = createNoticeTokenCodec({ secretKey: Buffer.from('another secret key, 32 bytes ...'), maxAgeSeconds });
    expect(codec.verify(other.sign(payload()), clock.now())).toEqual({ ok: false, reason: 'forged' });
    // Same payload bytes, tag computed with the underived secret: the purpose label matters.
    const raw = Buffer.from(codec.sign(payload()), 'base64url');
    const body = raw.subarray(0, raw.length - 16);
    const wrongTag = createHmac('sha256', secretKey).update(body).digest().subarray(0, 16);
    expect(codec.verify(Buffer.concat([body, wrongTag]).toString('base64url'), clock.now())).toEqual({ ok: false, reason: 'forged' });
  });

  it('answers malformed for junk, truncation, padding, non-URL-safe alphabets and oversize input', () => {
    const token = codec.sign(payload());
    const now = clock.now();
    for (const bad of ['', 'a', '!!!!', `${token}=`, `${token}==`, `${token.slice(0, 5)}+${token.slice(6)}`, `${token.slice(0, 5)}/${token.slice(6)}`, `${token.slice(0, 10)}%${token.slice(11)}`, 'x'.repeat(MAX_TOKEN_CHARS + 1)]) {
      const result = codec.verify(bad, now);
      expect(result.ok, JSON.stringify(bad.slice(0, 40))).toBe(false);
      if (!result.ok) expect(result.reason).toBe('malformed');
    }
    for (let cut = 1; cut < token.length; cut += 7) {
      const result = codec.verify(token.slice(0, token.length - cut), now);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(['forged', 'malformed']).toContain(result.reason);
    }
    // An unknown version byte is malformed even with a matching tag.
    const raw = Buffer.from(token, 'base64url');
    raw[0] = 0x02;
    expect(codec.verify(raw.toString('base64url'), now)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never throws on non-string input', () => {
    expect(codec.verify(undefined as unknown as string, clock.now())).toEqual({ ok: false, reason: 'malformed' });
    expect(codec.verify(42 as unknown as string, clock.now())).toEqual({ ok: false, reason: 'malformed' });
  });

  it('expires after maxAgeSeconds, checked after the signature', () => {
    const local = new ManualClock(Date.UTC(2026, 0, 1));
    const shortCodec = createNoticeTokenCodec({ secretKey, maxAgeSeconds: 60 });
    const token = shortCodec.sign(payload({ issuedAtMs: local.now() }));
    local.advance(60_000);
    expect(shortCodec.verify(token, local.now()).ok).toBe(true);
    local.advance(1);
    expect(shortCodec.verify(token, local.now())).toEqual({ ok: false, reason: 'expired' });
    // An expired token with a bad tag is forged, not expired.
    const i = token.length - 3;
    const forged = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    expect(shortCodec.verify(forged, local.now())).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses to sign what it cannot encode, and to start without a key', () => {
    expect(() => codec.sign(payload({ netMicros: -1 }))).toThrow(RangeError);
    expect(() => codec.sign(payload({ grossUsdMicros: 1.5 }))).toThrow(RangeError);
    expect(() => codec.sign(payload({ currency: 'eur' }))).toThrow(RangeError);
    expect(() => createNoticeTokenCodec({ secretKey: Buffer.alloc(0), maxAgeSeconds })).toThrow();
    expect(() => createNoticeTokenCodec({ secretKey, maxAgeSeconds: 0 })).toThrow();
  });
});
