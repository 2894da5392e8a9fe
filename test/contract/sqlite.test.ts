/** Runs the storage contract suite on SQLite: a fresh database file in a temp dir per test. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/storage/sqlite/index.js';
import { defineStoreContract } from './store-contract.js';

defineStoreContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'adx-contract-'));
  // A nested path also checks that the parent directory is created.
  const store = await openSqliteStore({ path: join(dir, 'nested', 'adx.db') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
