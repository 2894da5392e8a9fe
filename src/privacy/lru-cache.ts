/**
 * A small bounded least-recently-used cache (a `Map` in use order). Used for decoded consent
 * strings: decoding is a pure function of the string, so the string itself is the key
 * (DESIGN section 11, "decode once per request, never per partner").
 */

/** A bounded LRU map. */
export interface LruCache<V> {
  /** The value for `key`, marking it most recently used; undefined when absent. */
  get(key: string): V | undefined;
  /** Stores `value` under `key`, evicting the least recently used entry beyond `maxEntries`. */
  set(key: string, value: V): void;
  /** Entries held now (at most `maxEntries`). */
  readonly size: number;
}

/**
 * A cache of at most `maxEntries` entries (a positive integer).
 * @throws RangeError when `maxEntries` is not a positive integer.
 */
export function createLruCache<V>(maxEntries: number): LruCache<V> {
  if (!(Number.isInteger(maxEntries) && maxEntries > 0)) throw new RangeError('maxEntries must be a positive integer');
  const map = new Map<string, V>();
  return {
    get(key) {
      const value = map.get(key);
      if (value === undefined) return undefined;
      // Re-insert: Map keeps insertion order, so the first key is the least recently used.
      map.delete(key);
      map.set(key, value);
      return value;
    },
    set(key, value) {
      map.delete(key);
      map.set(key, value);
      if (map.size > maxEntries) map.delete(map.keys().next().value as string);
    },
    get size() {
      return map.size;
    },
  };
}
