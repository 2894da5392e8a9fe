/**
 * Encryption at rest for webhook secrets and endpoint API keys (issue: "webhook secrets are kept
 * encrypted at rest with the secret key of DESIGN section 9"). AES-256-GCM (NIST SP 800-38D)
 * under a key derived from the exchange secret key with a purpose label, so the same secret key
 * also signs notice tokens without the two uses sharing a key. Format:
 * `v1.<iv base64url>.<tag base64url>.<ciphertext base64url>`.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** Seals and opens short secrets. */
export interface SecretBox {
  /** Encrypts `plaintext` (UTF-8) with a fresh 96-bit IV. */
  seal(plaintext: string): string;
  /** Decrypts a value made by `seal`. @throws Error when it is malformed or was not sealed under this key. */
  open(sealed: string): string;
}

/** A box keyed by HMAC-SHA256(secretKey, 'adx webhook secrets v1'). */
export function createSecretBox(secretKey: Buffer): SecretBox {
  const key = createHmac('sha256', secretKey).update('adx webhook secrets v1').digest();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `v1.${iv.toString('base64url')}.${tag.toString('base64url')}.${ciphertext.toString('base64url')}`;
    },
    open(sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') throw new Error('sealed secret has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'));
      decipher.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
