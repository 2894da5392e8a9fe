import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix, safeEqual } from '../../src/admin/api-keys.js';

describe('api keys', () => {
  it('generates adxk_ + 32 random bytes in base64url', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^adxk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(5), 'base64url')).toHaveLength(32);
    expect(generateApiKey()).not.toBe(key);
  });

  it('hashes with hex SHA-256', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('keeps the first 12 characters as prefix', () => {
    expect(keyPrefix('adxk_abcdefghijklmnop')).toBe('adxk_abcdefg');
  });

  it('compares secrets of any lengths', () => {
    expect(safeEqual('secret', 'secret')).toBe(true);
    expect(safeEqual('secret', 'secreT')).toBe(false);
    expect(safeEqual('secret', 'secret-longer')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('', 'x')).toBe(false);
  });
});
