/**
 * Small type predicates shared by the bid request rules. They only read the value they are given:
 * no copies, no key enumeration, so they are safe on hostile input (prototype keys such as
 * `__proto__` are never read or assigned) and cheap enough for the bid path.
 */
import type { FieldError } from '../domain/errors.js';

/** A parsed JSON object (not an array, not null), read-only from the validator's point of view. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** True when `value` is a JSON object: not null, not an array, not a primitive. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a string with at least one character. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/**
 * True for a finite number. `JSON.parse` turns an out-of-range literal such as `1e999` into
 * `Infinity`, which no price or size may be.
 */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** True for a finite number greater than zero. */
export function isPositiveNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * True for an ISO 4217 alphabetic code as OpenRTB 2.5 uses it (`bidfloorcur`, `cur[]`, 3.2.1 and
 * 3.2.4): exactly three upper-case ASCII letters. Whether the exchange has a rate for it is the
 * auction's business (DESIGN section 4), not validation's. Hand-rolled instead of a RegExp
 * because it runs for every imp.
 */
export function isCurrencyCode(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 3) return false;
  for (let i = 0; i < 3; i++) {
    const c = value.charCodeAt(i);
    if (c < 65 || c > 90) return false;
  }
  return true;
}

/** True when every element of `value` is a string (an empty array passes). */
export function isStringArray(value: readonly unknown[]): boolean {
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

/** Appends one field error; `field` is the dotted path (`imp[0].banner.w`), `body` for the whole body. */
export function fail(errors: FieldError[], field: string, message: string): void {
  errors.push({ field, message });
}

/** The message for an `ext` that is present but not an object. */
export const EXT_MESSAGE = 'must be an object (OpenRTB 2.5: every ext is an object)';

/**
 * True when an optional `ext` is present but not a JSON object (null, an array or a primitive).
 * Lets callers build the field path only on failure.
 */
export function isBadExt(value: unknown): boolean {
  return value !== undefined && !isObject(value);
}

/**
 * Checks an optional `ext` (OpenRTB 2.5 section 3: every object's `ext` is an object): absent is
 * fine; present it must be a JSON object (null, arrays and primitives fail). Returns the ext when
 * it is an object, so callers can go on to check known extensions inside it.
 */
export function checkExt(errors: FieldError[], value: unknown, field: string): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (isObject(value)) return value;
  fail(errors, field, EXT_MESSAGE);
  return undefined;
}
