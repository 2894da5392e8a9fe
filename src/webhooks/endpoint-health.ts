/**
 * Endpoint health after an attempt (DESIGN section 6): a 2xx clears the failure run and records
 * the success (written at most every `LAST_SUCCESS_WRITE_INTERVAL_MS` while healthy, to keep a
 * write per delivery off the store); a 410 disables the endpoint at once (`gone`); another failure
 * starts a failure run, and a run longer than `disableAfterFailingMs` without a success disables
 * it (`failing`). Pure: answers the change to store, if any.
 */
import type { WebhookEndpointRecord } from '../storage/ports.js';

/** `lastSuccessAtMs` of a healthy endpoint is rewritten at most this often, ms. */
export const LAST_SUCCESS_WRITE_INTERVAL_MS = 5_000;

/** A change to an endpoint, and why (for the log). */
export interface EndpointHealthChange {
  patch: Partial<Omit<WebhookEndpointRecord, 'id' | 'createdAtMs'>>;
  /** Set when the change disables the endpoint. */
  disabled?: 'gone' | 'failing';
}

/**
 * The change an attempt's `outcome` (`delivered`, `gone`, `retry`, `failed`) makes to `record` at
 * `nowMs`, or undefined when nothing needs writing.
 */
export function endpointHealthChange(record: WebhookEndpointRecord, outcome: string, nowMs: number, disableAfterFailingMs: number): EndpointHealthChange | undefined {
  if (outcome === 'delivered') {
    const stale = record.lastSuccessAtMs === null || nowMs - record.lastSuccessAtMs >= LAST_SUCCESS_WRITE_INTERVAL_MS;
    return record.failingSinceMs !== null || stale ? { patch: { lastSuccessAtMs: nowMs, failingSinceMs: null } } : undefined;
  }
  if (outcome === 'gone') {
    return record.enabled ? { patch: { enabled: false, disabledReason: 'gone', updatedAtMs: nowMs }, disabled: 'gone' } : undefined;
  }
  if (record.failingSinceMs === null) return { patch: { failingSinceMs: nowMs } };
  if (record.enabled && nowMs - record.failingSinceMs > disableAfterFailingMs) {
    return { patch: { enabled: false, disabledReason: 'failing', updatedAtMs: nowMs }, disabled: 'failing' };
  }
  return undefined;
}
