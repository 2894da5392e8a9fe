/** `sumRowsByKey`: one row per key for a PostgreSQL upsert-add batch, columns added, the rest kept. */
import { describe, expect, it } from 'vitest';
import { sumRowsByKey } from '../../src/storage/queries/sum-rows.js';

describe('sumRowsByKey', () => {
  it('adds the listed columns of rows sharing a key, in first-seen order, and keeps the other fields of the first', () => {
    const rows = [
      { id: 'a', minute: 1, calls: 1, bids: 2, label: 'first' },
      { id: 'b', minute: 1, calls: 5, bids: 0, label: 'other' },
      { id: 'a', minute: 1, calls: 3, bids: 4, label: 'second' },
      { id: 'a', minute: 2, calls: 1, bids: 1, label: 'next minute' },
    ];
    expect(sumRowsByKey(rows, (r) => `${r.id}\u0000${r.minute}`, ['calls', 'bids'] as const)).toEqual([
      { id: 'a', minute: 1, calls: 4, bids: 6, label: 'first' },
      { id: 'b', minute: 1, calls: 5, bids: 0, label: 'other' },
      { id: 'a', minute: 2, calls: 1, bids: 1, label: 'next minute' },
    ]);
  });

  it('keeps micros exact and answers [] for no rows', () => {
    const big = 2 ** 52;
    expect(sumRowsByKey([{ k: 'x', micros: big }, { k: 'x', micros: 1 }], (r) => r.k, ['micros'] as const)).toEqual([{ k: 'x', micros: big + 1 }]);
    expect(sumRowsByKey([], () => '', [] as const)).toEqual([]);
  });
});
