/**
 * Publisher API keys (DESIGN sections 2 and 7). A key is shown to its owner once, at creation or
 * rotation, and only its SHA-256 hash is stored (`ApiKeyRecord.keyHash`). The bid endpoint
 * authenticates with `store.publishers.findByKeyHash(hashApiKey(key), now)`: a hash lookup needs
 * no constant-time compare, because the stored value is a digest of a 256-bit secret.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of every key the exchange issues, so a leaked key is recognizable in logs and scanners. */
export const API_KEY_PREFIX = 'adxk_';

/** Number of leading key characters kept for display (`ApiKeyRecord.prefix`). */
export const KEY_PREFIX_LENGTH = 12;

/**
 * A new publisher API key: `adxk_` followed by 32 crypto-random bytes in base64url (43 chars,
 * 256 bits of entropy).
 */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Hex SHA-256 of `key` (UTF-8): the form in which keys are stored and looked up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * The display prefix of `key`: its first 12 characters (`adxk_` + 7), which identifies a key to
 * its owner without revealing enough of it to matter.
 */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

/**
 * Constant-time string equality for secrets (the admin key). Both sides are hashed with SHA-256
 * first so `crypto.timingSafeEqual` compares equal-length buffers and the time taken reveals
 * neither the content nor the length of the expected value.
 */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
