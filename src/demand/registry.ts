/**
 * The adapter registry: adapter code (a partner's `adapter` field) to adapter (STYLE 1:
 * "adding a partner is one registry line").
 */
import type { Adapter } from './contract.js';
import { openrtb25Adapter } from './adapters/openrtb25/index.js';

/** Every adapter the exchange ships. Adding a partner adapter is one line here. */
const BUILT_IN_ADAPTERS: readonly Adapter[] = [
  openrtb25Adapter,
];

/** Looks adapters up by code. Immutable once built. */
export interface AdapterRegistry {
  /** The adapter whose `code` is `code`, or undefined (the dispatcher records `bad_input`). */
  get(code: string): Adapter | undefined;
  /** Every registered code, in registration order (for config validation and docs). */
  codes(): string[];
}

/**
 * A registry over `adapters` (default: the built-in adapters, `openrtb25` first).
 * @throws Error when two adapters share a code (a wiring bug, caught at start).
 */
export function createAdapterRegistry(adapters: readonly Adapter[] = BUILT_IN_ADAPTERS): AdapterRegistry {
  const byCode = new Map<string, Adapter>();
  for (const adapter of adapters) {
    if (byCode.has(adapter.code)) throw new Error(`adapter code ${JSON.stringify(adapter.code)} is registered twice`);
    byCode.set(adapter.code, adapter);
  }
  const codes = [...byCode.keys()];
  return {
    get: (code) => byCode.get(code),
    codes: () => [...codes],
  };
}
