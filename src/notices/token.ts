/**
 * Notice token codec (DESIGN section 3): the `t` parameter of `nurl`, `burl` and the impression
 * pixel, signed with the exchange's secret key so any node verifies it without a store lookup.
 *
 * Wire format, all base64url without padding (RFC 4648 section 5), so the token survives the
 * percent-decoding Prebid.js applies to `nurl` before firing it:
 *
 *   token   = base64url(payload || tag)
 *   payload = version(1 byte, 0x01)
 *             varint issuedAtMs, varint netMicros, varint netUsdMicros, varint grossUsdMicros
 *             currency (3 ASCII bytes)
 *             string auctionId, string impId, string bidId, string partnerId, string publisherId
 *   string  = 0x00 varint(byteLength) UTF-8 bytes            (any string)
 *           | code(1..n) 16 bytes                           (an exchange id `<kind>_<22 base64url>`,
 *                                                            the kind from ID_KINDS below)
 *   varint  = unsigned LEB128, at most 8 bytes, a safe integer
 *   tag     = first 16 bytes (128 bits) of HMAC-SHA256(tokenKey, payload)
 *   tokenKey = HMAC-SHA256(secretKey, "adx notice token v1")
 *
 * The key is derived with a purpose label so the same secret key can serve other purposes
 * (webhook secrets at rest) without one use being able to forge the other. Exchange ids carry
 * 128 random bits in 22 base64url characters; storing them as 16 raw bytes keeps a typical token
 * around 140 characters.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { CURRENCY_CODE } from '../domain/currency.js';
import type { NoticeTokenCodec, NoticeTokenPayload, TokenVerification } from './types.js';

/** First byte of every token payload; a new layout gets a new version. */
const VERSION = 0x01;
/** Bytes of the truncated HMAC-SHA256 tag (128 bits). */
const TAG_BYTES = 16;
/** Purpose label of the derived HMAC key. */
const KEY_LABEL = 'adx notice token v1';
/**
 * Longest token `verify` looks at, in characters. Larger inputs are `malformed` without being
 * decoded; the HTTP server's own request-line limit is lower than this anyway.
 */
export const MAX_TOKEN_CHARS = 16_384;
/** Smallest possible token: version, four 1-byte varints, currency, five 2-byte strings, tag. */
const MIN_TOKEN_BYTES = 1 + 4 + 3 + 5 * 2 + TAG_BYTES;
/** Id kinds stored as raw bytes; position + 1 is the string code. Order is part of the format. */
const ID_KINDS = ['auc', 'bid', 'req', 'resp', 'pub', 'dsp', 'msg', 'ep', 'key', 'rule', 'alert'] as const;
const ID_CODE = new Map<string, number>(ID_KINDS.map((kind, i) => [kind, i + 1]));
/**
 * 22 base64url characters that decode to exactly 16 bytes and back: the last character carries
 * 2 data bits and 4 zero bits, so it is one of A, Q, g, w.
 */
const ID_BODY = /^[A-Za-z0-9_-]{21}[AQgw]$/;
const ID_BODY_CHARS = 22;
const ID_BYTES = 16;

/** Options of `createNoticeTokenCodec`. */
export interface NoticeTokenCodecOptions {
  /** The exchange's secret key (`ADX_SECRET_KEY`), raw bytes; must not be empty. */
  secretKey: Buffer;
  /** A token older than this (by `issuedAtMs`) verifies as `expired` (DESIGN: default 24 h). */
  maxAgeSeconds: number;
}

/**
 * Creates the notice token codec (DESIGN section 3; HMAC-SHA256 per RFC 2104 / FIPS 180-4).
 *
 * `sign(payload)` answers the base64url token. It throws RangeError when the payload is not
 * encodable: a price or `issuedAtMs` that is not a non-negative safe integer, or a `currency`
 * that is not three upper-case letters (the auction only produces encodable payloads).
 *
 * `verify(token, nowMs)` never throws. In order: a token that is not canonical base64url, is too
 * short or too long, or has an unknown version is `malformed`; a tag that does not match is
 * `forged` (constant-time compare, checked before anything else is parsed, so an expired forged
 * token is `forged`); a signed payload that does not parse is `malformed`; one with
 * `nowMs - issuedAtMs > maxAgeSeconds * 1000` is `expired`.
 *
 * @throws Error when `secretKey` is empty or `maxAgeSeconds` is not a positive number.
 */
export function createNoticeTokenCodec(options: NoticeTokenCodecOptions): NoticeTokenCodec {
  if (!Buffer.isBuffer(options.secretKey) || options.secretKey.length === 0) throw new Error('notice token secret key must not be empty');
  if (!(options.maxAgeSeconds > 0)) throw new Error('notice token maxAgeSeconds must be a positive number');
  const key: KeyObject = createSecretKey(createHmac('sha256', options.secretKey).update(KEY_LABEL).digest());
  const maxAgeMs = options.maxAgeSeconds * 1000;

  const tagOf = (payload: Buffer): Buffer => createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES);

  return {
    sign(payload) {
      const bytes = encodePayload(payload);
      return Buffer.concat([bytes, tagOf(bytes)]).toString('base64url');
    },

    verify(token, nowMs): TokenVerification {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return { ok: false, reason: 'malformed' };
      const raw = Buffer.from(token, 'base64url');
      // Buffer.from skips characters outside the alphabet and ignores trailing bits; only a token
      // that re-encodes to itself is canonical, so no two strings verify as the same token.
      if (raw.length < MIN_TOKEN_BYTES || raw[0] !== VERSION || raw.toString('base64url') !== token) {
        return { ok: false, reason: 'malformed' };
      }
      const payloadBytes = raw.subarray(0, raw.length - TAG_BYTES);
      if (!timingSafeEqual(tagOf(payloadBytes), raw.subarray(raw.length - TAG_BYTES))) return { ok: false, reason: 'forged' };
      const payload = decodePayload(payloadBytes);
      if (payload === undefined) return { ok: false, reason: 'malformed' };
      if (nowMs - payload.issuedAtMs > maxAgeMs) return { ok: false, reason: 'expired' };
      return { ok: true, payload };
    },
  };
}

// ---- encoding ----------------------------------------------------------------------------------

/** How one string field is written: as a compact exchange id, or as length-prefixed UTF-8. */
interface StringPlan {
  code: number;
  value: string;
  /** For raw strings: UTF-8 byte length; for ids: the offset of the 22-char body in `value`. */
  n: number;
}

function planString(value: string, field: string): StringPlan {
  if (typeof value !== 'string') throw new RangeError(`notice token ${field} must be a string`);
  const sep = value.indexOf('_');
  if (sep > 0 && value.length - sep - 1 === ID_BODY_CHARS) {
    const code = ID_CODE.get(value.slice(0, sep));
    if (code !== undefined && ID_BODY.test(value.slice(sep + 1))) return { code, value, n: sep + 1 };
  }
  return { code: 0, value, n: Buffer.byteLength(value, 'utf8') };
}

function planSize(plan: StringPlan): number {
  return plan.code === 0 ? 1 + varintSize(plan.n) + plan.n : 1 + ID_BYTES;
}

function checkInteger(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`notice token ${field} must be a non-negative safe integer`);
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, offset: number, value: number): number {
  while (value >= 0x80) {
    buf[offset++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  buf[offset++] = value;
  return offset;
}

function writeString(buf: Buffer, offset: number, plan: StringPlan): number {
  buf[offset++] = plan.code;
  if (plan.code === 0) {
    offset = writeVarint(buf, offset, plan.n);
    return offset + buf.write(plan.value, offset, plan.n, 'utf8');
  }
  return offset + buf.write(plan.value.slice(plan.n), offset, ID_BYTES, 'base64url');
}

/** Payload bytes (without the tag). @throws RangeError when a field is not encodable. */
function encodePayload(p: NoticeTokenPayload): Buffer {
  checkInteger(p.issuedAtMs, 'issuedAtMs');
  checkInteger(p.netMicros, 'netMicros');
  checkInteger(p.netUsdMicros, 'netUsdMicros');
  checkInteger(p.grossUsdMicros, 'grossUsdMicros');
  if (typeof p.currency !== 'string' || !CURRENCY_CODE.test(p.currency)) throw new RangeError('notice token currency must be three upper-case letters');
  const strings = [
    planString(p.auctionId, 'auctionId'),
    planString(p.impId, 'impId'),
    planString(p.bidId, 'bidId'),
    planString(p.partnerId, 'partnerId'),
    planString(p.publisherId, 'publisherId'),
  ];
  let size = 1 + varintSize(p.issuedAtMs) + varintSize(p.netMicros) + varintSize(p.netUsdMicros) + varintSize(p.grossUsdMicros) + 3;
  for (const s of strings) size += planSize(s);
  const buf = Buffer.allocUnsafe(size);
  buf[0] = VERSION;
  let offset = writeVarint(buf, 1, p.issuedAtMs);
  offset = writeVarint(buf, offset, p.netMicros);
  offset = writeVarint(buf, offset, p.netUsdMicros);
  offset = writeVarint(buf, offset, p.grossUsdMicros);
  offset += buf.write(p.currency, offset, 3, 'latin1');
  for (const s of strings) offset = writeString(buf, offset, s);
  return buf;
}

// ---- decoding (only of payloads whose tag matched) ---------------------------------------------

/** A cursor over payload bytes; every read answers undefined past the end or on bad structure. */
class Reader {
  offset = 1; // after the version byte
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.offset === this.buf.length;
  }

  varint(): number | undefined {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const byte = this.buf[this.offset++];
      if (byte === undefined) return undefined;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return Number.isSafeInteger(result) ? result : undefined;
      scale *= 0x80;
    }
    return undefined;
  }

  currency(): string | undefined {
    if (this.offset + 3 > this.buf.length) return undefined;
    const value = this.buf.toString('latin1', this.offset, this.offset + 3);
    this.offset += 3;
    return CURRENCY_CODE.test(value) ? value : undefined;
  }

  string(): string | undefined {
    const code = this.buf[this.offset++];
    if (code === undefined) return undefined;
    if (code === 0) {
      const length = this.varint();
      if (length === undefined || this.offset + length > this.buf.length) return undefined;
      const value = this.buf.toString('utf8', this.offset, this.offset + length);
      this.offset += length;
      return value;
    }
    const kind = ID_KINDS[code - 1];
    if (kind === undefined || this.offset + ID_BYTES > this.buf.length) return undefined;
    const body = this.buf.toString('base64url', this.offset, this.offset + ID_BYTES);
    this.offset += ID_BYTES;
    return `${kind}_${body}`;
  }
}

function decodePayload(buf: Buffer): NoticeTokenPayload | undefined {
  const r = new Reader(buf);
  const issuedAtMs = r.varint();
  const netMicros = r.varint();
  const netUsdMicros = r.varint();
  const grossUsdMicros = r.varint();
  const currency = r.currency();
  const auctionId = r.string();
  const impId = r.string();
  const bidId = r.string();
  const partnerId = r.string();
  const publisherId = r.string();
  if (
    issuedAtMs === undefined || netMicros === undefined || netUsdMicros === undefined || grossUsdMicros === undefined ||
    currency === undefined || auctionId === undefined || impId === undefined || bidId === undefined ||
    partnerId === undefined || publisherId === undefined || !r.done
  ) {
    return undefined;
  }
  return { auctionId, impId, bidId, partnerId, publisherId, netMicros, currency, netUsdMicros, grossUsdMicros, issuedAtMs };
}
