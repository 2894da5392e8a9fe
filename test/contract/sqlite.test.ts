/**
 * Runs the storage contract suite on SQLite: a fresh database file in a temp dir per test. No
 * `openPeer`: one SQLite node writes through one connection (a second writer on the file would
 * see `database is locked` past the short busy timeout), so the concurrency cases run on one handle.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/storage/sqlite/index.js';
import { defineStoreContract } from './store-contract.js';

defineStoreContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'adx-contract-'));
  // A nested path also checks that the parent directory is created.
  const path = join(dir, 'nested', 'adx.db');
  const store = await openSqliteStore({ path });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
