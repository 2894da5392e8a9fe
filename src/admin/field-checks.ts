/**
 * Field checks shared by the admin services. The services validate their own input (the HTTP
 * schemas check types too, but the CLI and the seed config call the services directly), collect
 * every problem at once and throw one `AdxError('invalid_request')` naming each field in its
 * snake_case JSON form (DESIGN section 8: `errors: [{field, message}]`).
 */
import { AdxError, type FieldError } from '../domain/errors.js';

/** Collects field errors; `throwIfAny` raises them together. */
export class FieldErrors {
  readonly list: FieldError[] = [];

  /** Records that `field` is invalid with `message` (e.g. "must be a positive integer"). */
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }

  /** @throws AdxError `invalid_request` listing every recorded error, when there is any. */
  throwIfAny(what: string): void {
    if (this.list.length === 0) return;
    const detail = `invalid ${what}: ` + this.list.map((e) => `${e.field} ${e.message}`).join('; ');
    throw new AdxError('invalid_request', detail, { errors: this.list });
  }
}

/** True for a plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks that the input is a JSON object.
 * @throws AdxError `invalid_request` with field `body` otherwise.
 */
export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (!isObject(value)) {
    throw new AdxError('invalid_request', `invalid ${what}: body must be an object`, { errors: [{ field: 'body', message: 'must be an object' }] });
  }
  return value;
}

/** Longest name accepted for publishers and demand partners, in characters. */
export const MAX_NAME_LENGTH = 200;

/** A non-empty (after trimming) string of at most `MAX_NAME_LENGTH` chars, trimmed; else an error is recorded. */
export function checkName(value: unknown, field: string, errors: FieldErrors): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    errors.add(field, 'must be a non-empty string');
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed.length > MAX_NAME_LENGTH) {
    errors.add(field, `must be at most ${MAX_NAME_LENGTH} characters`);
    return undefined;
  }
  return trimmed;
}

/** A boolean; else an error is recorded. */
export function checkBoolean(value: unknown, field: string, errors: FieldErrors): boolean | undefined {
  if (typeof value !== 'boolean') {
    errors.add(field, 'must be a boolean');
    return undefined;
  }
  return value;
}

/** A positive safe integer; else an error is recorded. */
export function checkPositiveInteger(value: unknown, field: string, errors: FieldErrors): number | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    errors.add(field, 'must be a positive integer');
    return undefined;
  }
  return value;
}

/** Largest CPM the admin API takes for a price (USD): keeps micros far inside safe integers. */
export const MAX_PRICE_CPM = 1_000_000;

/**
 * A CPM price (USD) as the admin API takes it: a finite number in [0, {@link MAX_PRICE_CPM}] with
 * at most 6 decimals (whole micros). Answers USD micros; else an error is recorded.
 */
export function checkCpmMicros(value: unknown, field: string, errors: FieldErrors): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_PRICE_CPM) {
    errors.add(field, `must be a CPM in USD between 0 and ${MAX_PRICE_CPM}`);
    return undefined;
  }
  const micros = Math.round(value * 1_000_000);
  if (Math.abs(micros - value * 1_000_000) > 1e-6 * Math.max(1, value * 1_000_000)) {
    errors.add(field, 'must have at most 6 decimals');
    return undefined;
  }
  return micros;
}

/**
 * A host name as an `Origin` header carries it, without scheme, port or path: labels of letters,
 * digits, `-` and `_` separated by dots (IPv4 literals pass). Lower-cased so comparisons with the
 * (case-insensitive) Origin host are exact.
 */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Normalizes `value` to a lower-case host name, or undefined when it is not one. */
export function normalizeHostName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const host = value.trim().toLowerCase().replace(/\.$/, '');
  return HOST_NAME.test(host) ? host : undefined;
}
