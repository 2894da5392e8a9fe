/**
 * The dispatcher's view of webhook endpoints: the records with their secrets and API key opened
 * (`secret-box.ts`), refreshed from the store at most every `ttlMs` so a delivery does not read
 * and decrypt per message. Admin changes made on any node are seen within `ttlMs` (DESIGN
 * section 7 asks for 2 s); changes this dispatcher makes itself (disable, failure marks) are
 * applied to the cache at once through `put`.
 */
import type { Clock } from '../domain/clock.js';
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../storage/ports.js';
import type { SecretBox } from './secret-box.js';

/** An endpoint with its sealed fields opened. */
export interface OpenedEndpoint {
  record: WebhookEndpointRecord;
  /** Plaintext API key sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Plaintext current secret (`whsec_...`). */
  secret: string;
  /** Plaintext previous secret, or null; signs only while `record.previousSecretExpiresAtMs > now`. */
  previousSecret: string | null;
}

/** Endpoint lookups for the dispatcher. */
export interface EndpointCache {
  /**
   * The endpoint, or undefined when it does not exist (deleted). Reloads the whole list when
   * older than `ttlMs`, and reads one record from the store on a miss (an endpoint created since).
   * Rejects when the store fails or a sealed field cannot be opened (wrong key).
   */
  get(id: string): Promise<OpenedEndpoint | undefined>;
  /**
   * The endpoint as loaded, without waiting: undefined when the list is older than `ttlMs` or
   * does not hold it (the caller then takes the asynchronous path). Never touches the store.
   */
  peek(id: string): OpenedEndpoint | undefined;
  /** Ids of the endpoints known to be disabled (to leave their messages unclaimed). Reloads when stale. */
  disabledIds(): Promise<string[]>;
  /** Replaces the cached record after this node updated it in the store. */
  put(record: WebhookEndpointRecord): void;
  /** Forgets the loaded list: the next lookup reads the store (an admin change on this node). */
  invalidate(): void;
}

/** Builds the cache; nothing is read until the first call. */
export function createEndpointCache(deps: {
  endpoints: Pick<WebhookEndpointStore, 'get' | 'list'>;
  box: SecretBox;
  clock: Clock;
  /** How long a loaded list is trusted, ms (default 1000). */
  ttlMs?: number;
}): EndpointCache {
  const ttlMs = deps.ttlMs ?? 1000;
  let byId = new Map<string, OpenedEndpoint>();
  let loadedAtMono = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | null = null;

  /** Reuses the opened secrets of an unchanged record (same ciphertexts) instead of decrypting again. */
  function open(record: WebhookEndpointRecord): OpenedEndpoint {
    const known = byId.get(record.id);
    if (
      known !== undefined &&
      known.record.apiKeyCiphertext === record.apiKeyCiphertext &&
      known.record.secretCiphertext === record.secretCiphertext &&
      known.record.previousSecretCiphertext === record.previousSecretCiphertext
    ) {
      return { ...known, record };
    }
    return {
      record,
      apiKey: deps.box.open(record.apiKeyCiphertext),
      secret: deps.box.open(record.secretCiphertext),
      previousSecret: record.previousSecretCiphertext === null ? null : deps.box.open(record.previousSecretCiphertext),
    };
  }

  async function refreshIfStale(): Promise<void> {
    if (deps.clock.monotonicMs() - loadedAtMono < ttlMs) return;
    if (loading === null) {
      loading = (async () => {
        const records = await deps.endpoints.list();
        const next = new Map<string, OpenedEndpoint>();
        for (const record of records) next.set(record.id, open(record));
        byId = next;
        loadedAtMono = deps.clock.monotonicMs();
      })().finally(() => {
        loading = null;
      });
    }
    await loading;
  }

  return {
    async get(id) {
      await refreshIfStale();
      const cached = byId.get(id);
      if (cached !== undefined) return cached;
      const record = await deps.endpoints.get(id);
      if (record === undefined) return undefined;
      const opened = open(record);
      byId.set(id, opened);
      return opened;
    },
    peek(id) {
      if (deps.clock.monotonicMs() - loadedAtMono >= ttlMs) return undefined;
      return byId.get(id);
    },
    async disabledIds() {
      await refreshIfStale();
      const ids: string[] = [];
      for (const entry of byId.values()) if (!entry.record.enabled) ids.push(entry.record.id);
      return ids;
    },
    put(record) {
      byId.set(record.id, open(record));
    },
    invalidate() {
      loadedAtMono = Number.NEGATIVE_INFINITY;
    },
  };
}
