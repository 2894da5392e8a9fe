/**
 * Process entry (STYLE 6): the only module that reads `process.env`. `serve()` loads the config,
 * builds the runtime, applies the seed (starting simulated DSPs for the demo seed), listens, and
 * shuts down gracefully on SIGTERM/SIGINT. `migrate()` only runs the migrations.
 */
import { demoSeed } from './config/demo-seed.js';
import { ConfigError, loadConfig } from './config/load.js';
import { applySeed } from './config/seed.js';
import type { Config } from './config/types.js';
import { startDspSim } from './cli/dsp-sim.js';
import { systemClock } from './domain/clock.js';
import { createIdGenerator } from './domain/ids.js';
import { createLogger } from './observability/logger.js';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { runClusterPrimary } from './cluster-primary.js';
import { applyHeapGrowth } from './heap-growth.js';
import { createRuntime, resolveSecretKey } from './runtime.js';
import { openStore } from './storage/open-store.js';

/** Loads the config from the process environment, printing every problem and exiting 2 when invalid. */
export async function configFromEnv(overrides: Partial<Record<string, string>> = {}): Promise<Config> {
  try {
    return await loadConfig({ ...process.env, ...overrides }, demoSeed);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * Parses `--workers`: a positive integer, or `auto` (the CPUs this process may use).
 * @throws RangeError naming the flag for anything else.
 */
export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === 'auto') return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`--workers must be a positive integer or auto, not ${JSON.stringify(value)}`);
  return n;
}

/**
 * `adx serve`: runs the exchange until SIGTERM/SIGINT. Answers the bound URL once listening.
 * With `workers` > 1 this process becomes the cluster primary (`cluster-primary.ts`) and each
 * worker process runs this function again as a cluster worker.
 */
export async function serve(overrides: Partial<Record<string, string>> = {}, options: { workers?: number } = {}): Promise<string> {
  const workers = options.workers ?? 1;
  if (workers > 1 && cluster.isPrimary) return servePrimary(workers, overrides);
  const workerIndex = cluster.isWorker ? Number(process.env.ADX_WORKER_INDEX ?? cluster.worker?.id ?? 0) : undefined;
  const config = await configFromEnv(overrides);
  const log = createLogger(config.log.level);
  const heapFlag = applyHeapGrowth(config.server.heapGrowingPercent, { execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS });
  if (heapFlag) log.debug({ flag: heapFlag }, 'V8 heap growing factor set');
  const ids = createIdGenerator();
  const runtime = await createRuntime({ config, log, ids, clusterWorkerIndex: workerIndex });
  const simulators: Array<{ close(): Promise<void> }> = [];
  // In a cluster the primary applied the seed once (and runs the demo's simulated DSPs).
  if (config.seed && workerIndex === undefined) {
    const seeded = await applySeed({
      store: runtime.store,
      clock: systemClock,
      ids,
      seed: config.seed,
      startSimulator: async (name, options) => {
        const sim = await startDspSim({ ...options, name, seat: name, host: '127.0.0.1', port: 0 });
        return { url: sim.url, close: () => sim.close() };
      },
    });
    simulators.push(...seeded.simulators);
    for (const p of seeded.createdPublishers) {
      log.info({ publisher_id: p.id, name: p.name }, 'seed publisher created');
      process.stdout.write(`publisher ${p.name} (${p.id}) API key: ${p.apiKey}\n`);
    }
    for (const p of seeded.existingPublishers) {
      process.stdout.write(`publisher ${p.name} (${p.id})${p.apiKey ? ` API key: ${p.apiKey}` : ''}\n`);
    }
    for (const s of seeded.simulators) log.info({ partner: s.name, url: s.url }, 'simulated DSP started');
  }
  const url = await runtime.start();
  log.info({ url, worker: workerIndex, database: config.storage.databaseUrl.startsWith('postgres') ? 'postgres' : config.storage.databaseUrl }, 'adx listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await runtime.close();
    await Promise.all(simulators.map((s) => s.close()));
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return url;
}

/** The cluster primary of `serve --workers N`: once-per-cluster work, then the workers. */
async function servePrimary(workers: number, overrides: Partial<Record<string, string>>): Promise<string> {
  const config = await configFromEnv(overrides);
  const log = createLogger(config.log.level);
  const url = await runClusterPrimary({
    workers,
    log,
    prepare: async () => {
      const store = await openStore(config.storage.databaseUrl);
      const simulators: Array<{ close(): Promise<void> }> = [];
      try {
        await store.migrate();
        await resolveSecretKey(config, store);
        if (config.seed) {
          const seeded = await applySeed({
            store,
            clock: systemClock,
            ids: createIdGenerator(),
            seed: config.seed,
            startSimulator: async (name, options) => {
              const sim = await startDspSim({ ...options, name, seat: name, host: '127.0.0.1', port: 0 });
              return { url: sim.url, close: () => sim.close() };
            },
          });
          simulators.push(...seeded.simulators);
          for (const p of seeded.createdPublishers) process.stdout.write(`publisher ${p.name} (${p.id}) API key: ${p.apiKey}\n`);
          for (const p of seeded.existingPublishers) process.stdout.write(`publisher ${p.name} (${p.id})${p.apiKey ? ` API key: ${p.apiKey}` : ''}\n`);
        }
        // SQLite: claims found now belong to a dead process (DESIGN section 6); workers never release any.
        if (store.kind === 'sqlite') await store.outbox.releaseClaims();
      } finally {
        await store.close();
      }
      return async () => {
        await Promise.all(simulators.map((s) => s.close()));
      };
    },
  });
  log.info({ url, workers }, 'adx listening (cluster)');
  return url;
}

/** `adx migrate`: applies the migrations to `DATABASE_URL` and exits. */
export async function migrate(): Promise<void> {
  const config = await configFromEnv({ ADX_CONFIG: process.env.ADX_CONFIG ?? 'none' });
  const store = await openStore(config.storage.databaseUrl);
  await store.migrate();
  await store.close();
  process.stdout.write(`migrated ${config.storage.databaseUrl.startsWith('postgres') ? 'PostgreSQL database' : config.storage.databaseUrl}\n`);
}
