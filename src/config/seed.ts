/**
 * Applying a seed config at start (DESIGN section 9): publishers and demand partners are created
 * when the store has none with the same name; a partner with `simulate` gets a simulated DSP
 * started on loopback and its endpoint pointed there (each start, since the port is ephemeral).
 */
import { generateApiKey, hashApiKey, keyPrefix } from '../admin/api-keys.js';
import type { Clock } from '../domain/clock.js';
import type { IdGenerator } from '../domain/ids.js';
import { MEDIA_TYPES } from '../domain/media-type.js';
import { toMicros } from '../domain/money.js';
import type { Store } from '../storage/ports.js';
import type { SeedConfig } from './types.js';

/** What applying the seed did: API keys of publishers it created (shown once), simulators it started. */
export interface SeedResult {
  createdPublishers: Array<{ id: string; name: string; apiKey: string }>;
  /** Seeded publishers that already existed (their key is the seed's `api_key`, when it names one). */
  existingPublishers: Array<{ id: string; name: string; apiKey: string | undefined }>;
  simulators: Array<{ name: string; url: string; close(): Promise<void> }>;
}

/** Starts a simulated DSP for a seeded partner; answers its URL. */
export type StartSimulator = (name: string, options: Record<string, unknown>) => Promise<{ url: string; close(): Promise<void> }>;

/** Applies `seed` to `store`. @throws when the store fails (the caller stops the start). */
export async function applySeed(deps: { store: Store; clock: Clock; ids: IdGenerator; seed: SeedConfig; startSimulator?: StartSimulator }): Promise<SeedResult> {
  const { store, clock, ids, seed } = deps;
  const result: SeedResult = { createdPublishers: [], existingPublishers: [], simulators: [] };
  const now = clock.now();
  const existingPublishers = await store.publishers.list();
  for (const p of seed.publishers ?? []) {
    const existing = existingPublishers.find((e) => e.name === p.name);
    if (existing) {
      result.existingPublishers.push({ id: existing.id, name: existing.name, apiKey: p.api_key });
      continue;
    }
    const apiKey = p.api_key ?? generateApiKey();
    const id = ids.next('pub');
    await store.publishers.create(
      {
        id,
        name: p.name,
        domain: p.domain ?? null,
        domains: p.domains ?? [],
        browserAccess: p.browser_access ?? false,
        auctionType: p.auction_type ?? 1,
        reservePriceMicros: toMicros(p.reserve_price ?? 0),
        sellerType: p.seller_type ?? 'PUBLISHER',
        isConfidential: p.is_confidential ?? false,
        createdAtMs: now,
        updatedAtMs: now,
      },
      { id: ids.next('key'), publisherId: id, keyHash: hashApiKey(apiKey), prefix: keyPrefix(apiKey), createdAtMs: now, expiresAtMs: null },
    );
    result.createdPublishers.push({ id, name: p.name, apiKey });
  }
  const existingPartners = await store.demandPartners.list();
  for (const d of seed.demand_partners ?? []) {
    let endpoint = d.endpoint;
    if (d.simulate && deps.startSimulator) {
      const sim = await deps.startSimulator(d.name, d.simulate);
      result.simulators.push({ name: d.name, ...sim });
      endpoint = sim.url;
    }
    if (!endpoint) continue;
    const existing = existingPartners.find((e) => e.name === d.name);
    if (existing) {
      if (existing.endpoint !== endpoint) await store.demandPartners.update(existing.id, { endpoint, updatedAtMs: now });
      continue;
    }
    await store.demandPartners.create({
      id: ids.next('dsp'),
      name: d.name,
      endpoint,
      adapter: d.adapter ?? 'openrtb25',
      timeoutMs: d.timeout_ms ?? 1000,
      gzip: d.gzip ?? false,
      qpsLimit: d.qps_limit ?? null,
      currency: d.currency ?? 'USD',
      enabled: d.enabled ?? true,
      openrtbVersion: d.openrtb_version ?? '2.5',
      gvlVendorId: d.gvl_vendor_id ?? null,
      mediaTypes: MEDIA_TYPES.filter((t) => (d.media_types ?? MEDIA_TYPES).includes(t)),
      createdAtMs: now,
      updatedAtMs: now,
    });
  }
  return result;
}
