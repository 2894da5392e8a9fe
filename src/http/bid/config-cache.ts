/**
 * In-memory cache of what the bid path reads on every request: publishers by API key hash and
 * the enabled demand partners. Entries live `ttlMs` (default 1 s), so a change made through any
 * node is seen everywhere within that bound (DESIGN section 7: "within 2 s"); the node that made
 * a change calls `invalidate()` so it sees it at once.
 */
import type { Clock } from '../../domain/clock.js';
import type { DemandPartnerRecord, PublisherRecord, Store } from '../../storage/ports.js';

/** Cached reads for the bid path. */
export interface ConfigCache {
  /** The publisher owning a valid key with this SHA-256 hex hash, or undefined. Rejects when the store is unreachable. */
  publisherByKeyHash(keyHash: string): Promise<PublisherRecord | undefined>;
  /** The publisher with this id (browser supply names it in `site.publisher.id`), or undefined. */
  publisherById(id: string): Promise<PublisherRecord | undefined>;
  /** Enabled demand partners. Rejects when the store is unreachable and nothing is cached. */
  enabledPartners(): Promise<DemandPartnerRecord[]>;
  /** Forgets everything (after an admin change on this node). */
  invalidate(): void;
}

/** Creates the cache over `store`. */
export function createConfigCache(deps: { store: Pick<Store, 'publishers' | 'demandPartners'>; clock: Clock; ttlMs?: number }): ConfigCache {
  const ttlMs = deps.ttlMs ?? 1000;
  const keys = new Map<string, { publisher: PublisherRecord | undefined; expiresAt: number }>();
  const byId = new Map<string, { publisher: PublisherRecord | undefined; expiresAt: number }>();
  let partners: { list: DemandPartnerRecord[]; expiresAt: number } | undefined;
  let partnersLoading: Promise<DemandPartnerRecord[]> | undefined;
  let generation = 0;

  return {
    async publisherByKeyHash(keyHash) {
      const now = deps.clock.monotonicMs();
      const hit = keys.get(keyHash);
      if (hit && hit.expiresAt > now) return hit.publisher;
      const gen = generation;
      const publisher = await deps.store.publishers.findByKeyHash(keyHash, deps.clock.now());
      if (gen === generation) {
        if (keys.size > 10_000) keys.clear(); // bounded: unknown keys cannot grow it without limit
        keys.set(keyHash, { publisher, expiresAt: now + ttlMs });
      }
      return publisher;
    },
    async publisherById(id) {
      const now = deps.clock.monotonicMs();
      const hit = byId.get(id);
      if (hit && hit.expiresAt > now) return hit.publisher;
      const gen = generation;
      const publisher = await deps.store.publishers.get(id);
      if (gen === generation) {
        if (byId.size > 10_000) byId.clear();
        byId.set(id, { publisher, expiresAt: now + ttlMs });
      }
      return publisher;
    },
    async enabledPartners() {
      const now = deps.clock.monotonicMs();
      if (partners && partners.expiresAt > now) return partners.list;
      if (!partnersLoading) {
        const gen = generation;
        partnersLoading = deps.store.demandPartners
          .list()
          .then((all) => {
            const list = all.filter((p) => p.enabled);
            if (gen === generation) partners = { list, expiresAt: deps.clock.monotonicMs() + ttlMs };
            return list;
          })
          .finally(() => {
            partnersLoading = undefined;
          });
      }
      return partnersLoading;
    },
    invalidate() {
      generation++;
      keys.clear();
      byId.clear();
      partners = undefined;
      partnersLoading = undefined;
    },
  };
}
