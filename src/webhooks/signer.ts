/**
 * Standard Webhooks v1 signatures (https://www.standardwebhooks.com, `spec/standard-webhooks.md`;
 * the scheme svix signs with, `server/svix-server/src/worker.rs` `sign_msg`). DESIGN section 6.
 *
 * Signed content: `${msgId}.${timestampSeconds}.${body}` (UTF-8, the body bytes exactly as sent).
 * Signature: `v1,<base64 HMAC-SHA256(key, signed content)>` where key = the base64-decoded part of
 * the secret `whsec_<base64>`. `webhook-signature` holds one or more such entries separated by
 * spaces; during a rotation the new secret signs first and the old one after it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The prefix of a Standard Webhooks symmetric secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a secret: base64-decodes what follows `whsec_` (a secret without the prefix is
 * accepted too, as the Standard Webhooks libraries do).
 * @throws Error when the secret decodes to no bytes.
 */
export function secretKeyBytes(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty or not base64');
  return key;
}

/**
 * One Standard Webhooks v1 signature, `v1,<base64>`, over `${msgId}.${timestampSeconds}.${body}`.
 * `timestampSeconds` is integer unix seconds (the `webhook-timestamp` header).
 * @throws Error when the secret is not usable (see `secretKeyBytes`).
 */
export function signPayload(input: { msgId: string; timestampSeconds: number; body: string; secret: string }): string {
  const mac = createHmac('sha256', secretKeyBytes(input.secret))
    .update(`${input.msgId}.${input.timestampSeconds}.`, 'utf8')
    .update(input.body, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` header value: one `v1,...` entry per secret, space-separated, in the
 * order given (rotation: the new secret first, then the old one while it is still valid).
 * @throws Error when `secrets` is empty or one is not usable.
 */
export function signatureHeader(msgId: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  if (secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  return secrets.map((secret) => signPayload({ msgId, timestampSeconds, body, secret })).join(' ');
}

/** A new secret: `whsec_` + base64 of 24 random bytes (192 bits, as svix generates). */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * Receiver-side check of a `webhook-signature` header (for our fake receiver, the demo and
 * tests; real receivers use the `standardwebhooks` package). Valid when the timestamp is an
 * integer within `toleranceSeconds` (default 300, the libraries' default) of `nowSeconds` and
 * some `v1,` entry equals the signature under `secret` (constant-time compare). Entries of other
 * versions (`v1a`, `v2`) are skipped. Never throws: a malformed input is `false`.
 */
export function verifySignature(input: {
  msgId: string;
  timestamp: string;
  body: string;
  signatureHeader: string;
  secret: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}): boolean {
  if (!/^\d+$/.test(input.timestamp)) return false;
  const timestampSeconds = Number(input.timestamp);
  const tolerance = input.toleranceSeconds ?? 300;
  if (Math.abs(input.nowSeconds - timestampSeconds) > tolerance) return false;
  let expected: Buffer;
  try {
    expected = Buffer.from(signPayload({ msgId: input.msgId, timestampSeconds, body: input.body, secret: input.secret }).slice(3), 'base64');
  } catch {
    return false;
  }
  for (const entry of input.signatureHeader.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
  }
  return false;
}
