/**
 * WAL checkpoints off the event loop (issue 15). With SQLite's default `wal_autocheckpoint`, the
 * commit that pushes the WAL past 1,000 pages runs the checkpoint itself: better-sqlite3 is
 * synchronous, so that commit freezes the event loop for the time it takes to copy the WAL into
 * the database file and fsync both (tens of ms under load: the bench's p99 and the shedder saw
 * it). Here the main connection sets `wal_autocheckpoint=0` and a worker thread with its own
 * connection to the same file runs `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`. A PASSIVE
 * checkpoint takes no lock that writers or readers wait for (sqlite.org/wal.html, "Checkpointing"),
 * so commits on the main thread go on while it runs; the next commit after a complete checkpoint
 * starts the WAL over from its beginning, so the file stays bounded.
 *
 * The worker is started from source text (`eval`), so it runs the same from `src/` under the test
 * runner and from `dist/`; better-sqlite3 is loaded by its resolved path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A running checkpoint worker. */
export interface Checkpointer {
  /** Stops the worker (its connection closes first), resolving once it has exited. */
  stop(): Promise<void>;
}

/** Options of `startCheckpointer`. */
export interface CheckpointerOptions {
  /** The database file (not `:memory:`). */
  path: string;
  /** Time between checkpoints, ms (default 250). */
  intervalMs?: number;
  /** Called with a failure message (the worker goes on; the next checkpoint is tried). */
  onError?: (message: string) => void;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
`;

/** Starts the checkpoint worker for `path`. The caller sets `wal_autocheckpoint=0` on its own connection. */
export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path: options.path, intervalMs: options.intervalMs ?? 250, driverPath },
  });
  // The worker never keeps the process alive on its own: the store's close() stops it.
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on('error', (error) => options.onError?.(error.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped = false;
  return {
    async stop() {
      if (!stopped) {
        stopped = true;
        // Referenced again while it winds down, so a caller awaiting stop() keeps the process alive.
        worker.ref();
        worker.postMessage('stop');
      }
      await exited;
    },
  };
}
