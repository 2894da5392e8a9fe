/**
 * `adx serve --workers N` (issue 15): N exchange processes on one port with node's `cluster`
 * module. The primary serves no request: it forks the workers (each runs `serve` as usual, with
 * `ADX_WORKER_INDEX` = 0..N-1 in its environment), hands them connections (cluster's default
 * round-robin on Linux), replaces a worker that dies, and on SIGTERM/SIGINT forwards the signal
 * to every worker and exits once they have drained and exited.
 *
 * What must happen once per cluster happens in the primary before the first fork (`prepare`):
 * migrations, the generated secret key, the seed (and the demo's simulated DSPs, which live in
 * the primary), and on SQLite the release of claims left by a dead process. Every worker opens
 * its own store connection: SQLite serialises writers on the file lock (transactions begin
 * IMMEDIATE, so a second process waits `busy_timeout` instead of failing), PostgreSQL as usual.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/** What the primary needs (STYLE 7). */
export interface ClusterPrimaryDeps {
  workers: number;
  log: Logger;
  /** Once-per-cluster work before the first fork; answers a cleanup to run after the workers exit. */
  prepare(): Promise<() => Promise<void>>;
  /** How long workers get to drain after the signal before SIGKILL, ms (default 15 000). */
  stopGraceMs?: number;
}

/**
 * Runs the primary: resolves with the address the workers listen on, once every worker listens.
 * Rejects when a worker exits before it ever listened (a config or store problem every worker
 * would hit), after stopping the others.
 */
export async function runClusterPrimary(deps: ClusterPrimaryDeps): Promise<string> {
  const { log } = deps;
  const cleanup = await deps.prepare();
  const byIndex = new Map<number, Worker>();
  let stopping = false;
  let listeningOnce = false;

  const fork = (index: number): Worker => {
    const worker = cluster.fork({ ADX_WORKER_INDEX: String(index) });
    byIndex.set(index, worker);
    worker.on('exit', (code, signal) => {
      if (byIndex.get(index) === worker) byIndex.delete(index);
      if (stopping) return;
      if (!listeningOnce) return; // start-up failure: handled by the listening wait below
      log.error({ worker: index, pid: worker.process.pid, code, signal }, 'adx worker exited; starting a new one');
      fork(index);
    });
    return worker;
  };

  const stopAll = async (signal: NodeJS.Signals): Promise<void> => {
    stopping = true;
    const workers = [...byIndex.values()];
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            const timer = setTimeout(() => worker.process.kill('SIGKILL'), deps.stopGraceMs ?? 15_000);
            worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            worker.process.kill(signal);
          }),
      ),
    );
  };

  const workers = Array.from({ length: deps.workers }, (_, i) => fork(i));
  let address: string;
  try {
    const addresses = await Promise.all(
      workers.map(
        (worker, index) =>
          new Promise<string>((resolve, reject) => {
            worker.once('listening', (a) => resolve(`http://${a.address ?? '127.0.0.1'}:${a.port}`));
            worker.once('exit', (code, signal) => reject(new Error(`adx worker ${index} exited (${code ?? signal}) before it listened`)));
          }),
      ),
    );
    address = addresses[0] ?? '';
    listeningOnce = true;
  } catch (error) {
    await stopAll('SIGTERM');
    await cleanup();
    throw error;
  }

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    log.info({ signal, workers: byIndex.size }, 'shutting down the workers');
    void stopAll(signal)
      .then(cleanup)
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'cluster shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  return address;
}
