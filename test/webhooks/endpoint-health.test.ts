/** Endpoint health rules after an attempt (DESIGN section 6): success, 410, failure runs. */
import { describe, expect, it } from 'vitest';
import type { WebhookEndpointRecord } from '../../src/storage/ports.js';
import { endpointHealthChange, LAST_SUCCESS_WRITE_INTERVAL_MS } from '../../src/webhooks/endpoint-health.js';

const DAY = 24 * 3600 * 1000;
const base: WebhookEndpointRecord = {
  id: 'ep_1',
  url: 'https://hooks.example',
  events: [],
  apiKeyCiphertext: 'x',
  publisherId: null,
  enabled: true,
  description: null,
  secretCiphertext: 'y',
  previousSecretCiphertext: null,
  previousSecretExpiresAtMs: null,
  disabledReason: null,
  lastSuccessAtMs: null,
  failingSinceMs: null,
  createdAtMs: 0,
  updatedAtMs: 0,
};

describe('endpointHealthChange', () => {
  it('a success records itself, but at most every LAST_SUCCESS_WRITE_INTERVAL_MS while healthy', () => {
    expect(endpointHealthChange(base, 'delivered', 1000, 5 * DAY)).toEqual({ patch: { lastSuccessAtMs: 1000, failingSinceMs: null } });
    const recent = { ...base, lastSuccessAtMs: 1000 };
    expect(endpointHealthChange(recent, 'delivered', 1000 + LAST_SUCCESS_WRITE_INTERVAL_MS - 1, 5 * DAY)).toBeUndefined();
    expect(endpointHealthChange({ ...recent, failingSinceMs: 500 }, 'delivered', 1200, 5 * DAY)?.patch.failingSinceMs).toBeNull();
  });

  it('410 disables at once (gone); a disabled endpoint is not written again', () => {
    expect(endpointHealthChange(base, 'gone', 7, 5 * DAY)).toEqual({ patch: { enabled: false, disabledReason: 'gone', updatedAtMs: 7 }, disabled: 'gone' });
    expect(endpointHealthChange({ ...base, enabled: false }, 'gone', 7, 5 * DAY)).toBeUndefined();
  });

  it('a failure starts a run; a run longer than the limit without a success disables (failing)', () => {
    expect(endpointHealthChange(base, 'retry', 100, 5 * DAY)).toEqual({ patch: { failingSinceMs: 100 } });
    const failing = { ...base, failingSinceMs: 100 };
    expect(endpointHealthChange(failing, 'retry', 100 + 5 * DAY, 5 * DAY)).toBeUndefined();
    expect(endpointHealthChange(failing, 'failed', 101 + 5 * DAY, 5 * DAY)).toEqual({
      patch: { enabled: false, disabledReason: 'failing', updatedAtMs: 101 + 5 * DAY },
      disabled: 'failing',
    });
  });
});
