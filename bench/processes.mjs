/**
 * Child processes of the benchmark: simulated DSPs, the exchange (`dist/`, as in production),
 * the baseline server and the webhook receiver, each a separate process on 127.0.0.1. Every child
 * is registered in one group and stopped by its pid (SIGTERM, SIGKILL after a grace period) by
 * `stopAll()`, which the harness calls at the end and on SIGINT. Importing this module does nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_GVL_VENDOR_ID } from './scenarios.mjs';

/** Repository root (bench/..). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST_CHILD_PROCESS = new URL('../dist/cli/child-process.js', import.meta.url);
const DIST_FREE_PORT = new URL('../dist/cli/free-port.js', import.meta.url);
const BASELINE_SCRIPT = fileURLToPath(new URL('./baseline-server.mjs', import.meta.url));

/**
 * Which CPUs run what (`taskset -c` lists). `server` runs the server under test (the exchange or
 * the baseline), `load` the load generator (this harness, wrk), the partners and the receiver.
 * `shared` is true when the two sets overlap (fewer CPUs than the server needs plus one).
 * @typedef {object} CpuLayout
 * @property {string} server e.g. `0`
 * @property {string} load e.g. `1` or `1-3`
 * @property {number} loadCpus how many CPUs `load` names
 * @property {boolean} shared
 */

/** True when `taskset` (util-linux) can be run. */
export function tasksetAvailable() {
  const probe = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' });
  return probe.status === 0;
}

/**
 * The pinned layout for a server of `serverCpus` processes on this machine: the server on CPUs
 * 0..serverCpus-1, everything else on the rest. Undefined (no pinning) with fewer than 2 CPUs or
 * without taskset. When the server asks for every CPU (e.g. `--workers 2` on 2 CPUs), both sets
 * are all CPUs and `shared` is true: the load generator then competes with the server.
 * @param {number} serverCpus
 * @returns {CpuLayout | undefined}
 */
export function cpuLayout(serverCpus) {
  const n = availableParallelism();
  if (n < 2 || !tasksetAvailable()) return undefined;
  const range = (/** @type {number} */ from, /** @type {number} */ to) => (from === to ? String(from) : `${from}-${to}`);
  const s = Math.max(1, Math.min(serverCpus, n));
  if (s >= n) return { server: range(0, n - 1), load: range(0, n - 1), loadCpus: n, shared: true };
  return { server: range(0, s - 1), load: range(s, n - 1), loadCpus: n - s, shared: false };
}

/**
 * Moves this process (every thread: the harness's own load generators run here) onto `cpus`.
 * @param {string} cpus a `taskset -c` list
 */
export function pinSelf(cpus) {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset -a -p -c ${cpus} ${process.pid} failed: ${r.stderr}`);
}

/**
 * A started child process.
 * @typedef {object} Child
 * @property {string} name label for messages
 * @property {string} url `http://127.0.0.1:<port>` it serves
 * @property {number} pid
 * @property {number} readyAfterMs from spawn to ready (ready line printed, or the health path answering 200), ms
 * @property {() => string} output everything it printed so far (stdout + stderr)
 * @property {(graceMs?: number) => Promise<void>} stop SIGTERM, SIGKILL after `graceMs`; resolves on exit
 */

/**
 * @typedef {object} ProcessGroup
 * @property {(options: { name: string, latencyMs?: string }) => Promise<Child>} startDspSim a dsp-sim bidding on every imp
 * @property {(options: ExchangeOptions) => Promise<Child>} startExchange `adx serve` with its own SQLite file and seed
 * @property {(options: { partnerUrls: string[], webhook?: { url: string, secret: string } }) => Promise<Child>} startBaseline the bare node:http baseline (with `webhook`, it POSTs signed auction.complete events there)
 * @property {(options: { secret: string, port: number }) => Promise<Child>} startWebhookReceiver `adx webhook-receiver`
 * @property {(child: Child) => Promise<void>} stop stops one child by pid and forgets it
 * @property {() => Promise<void>} stopAll stops every child still running, by pid
 */

/**
 * @typedef {object} ExchangeOptions
 * @property {string} dir temp folder for the SQLite file and the seed config
 * @property {string} apiKey the seeded publisher's API key
 * @property {string} adminKey ADX_ADMIN_KEY
 * @property {string[]} partnerUrls demand partner endpoints (seeded as `bench-dsp-<n>`)
 * @property {boolean} [webhooks] set ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 (loopback receiver)
 * @property {string[]} [nodeArgs] extra node flags (e.g. `--cpu-prof`)
 * @property {string[]} [serveArgs] extra `serve` flags (e.g. `--workers N` once supported)
 */

/** @returns {Promise<{ startCliChild: Function, CLI_PATH: string }>} */
async function distChildProcess() {
  return import(DIST_CHILD_PROCESS.href);
}

/** A free TCP port on 127.0.0.1 (dist/cli/free-port.js). @returns {Promise<number>} */
export async function freePort() {
  const { freePort: find } = await import(DIST_FREE_PORT.href);
  return find();
}

/**
 * Peak resident set size of a process in MiB: `VmHWM` from `/proc/<pid>/status` (Linux), else the
 * current RSS from `ps` (a lower bound of the peak), else undefined. With `withChildren` (a
 * `serve --workers` primary), the sum over the process and its direct children.
 * @param {number} pid
 * @param {{ withChildren?: boolean }} [options]
 * @returns {Promise<{ mib: number, source: 'VmHWM' | 'ps' } | undefined>}
 */
export async function peakRss(pid, options = {}) {
  if (options.withChildren) {
    const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout.split('\n').map(Number).filter((n) => n > 0);
    const all = await Promise.all([pid, ...children].map((p) => peakRss(p)));
    if (all.some((r) => r === undefined)) return undefined;
    return { mib: all.reduce((sum, r) => sum + (r?.mib ?? 0), 0), source: all.every((r) => r?.source === 'VmHWM') ? 'VmHWM' : 'ps' };
  }
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    if (match) return { mib: Number(match[1]) / 1024, source: 'VmHWM' };
  } catch {
    // not Linux, or the process is gone: try ps
  }
  const out = await new Promise((resolve) => {
    const ps = spawn('ps', ['-o', 'rss=', '-p', String(pid)], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    ps.stdout.on('data', (chunk) => (text += chunk));
    ps.on('error', () => resolve(''));
    ps.on('close', () => resolve(text.trim()));
  });
  const kib = Number(out);
  return out !== '' && Number.isFinite(kib) ? { mib: kib / 1024, source: 'ps' } : undefined;
}

/**
 * Spawns `node ...nodeArgs script ...args` and resolves once `ready()` says so.
 * With `cpus`, the child runs under `taskset -c <cpus>` (taskset execs node, so the pid is node's).
 * @param {{ name: string, script: string, args: string[], env?: NodeJS.ProcessEnv, nodeArgs?: string[], url?: string, readyPattern?: RegExp, healthPath?: string, timeoutMs?: number, cpus?: string }} o
 * @returns {Promise<Child>}
 */
function spawnNode(o) {
  const argv = [...(o.nodeArgs ?? []), o.script, ...o.args];
  const [command, args] = o.cpus ? ['taskset', ['-c', o.cpus, process.execPath, ...argv]] : [process.execPath, argv];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onData = (/** @type {Buffer} */ chunk) => {
    // Keep the head and the tail only: a busy child must not grow the harness's memory.
    output += chunk.toString('utf8');
    if (output.length > 200_000) output = output.slice(0, 20_000) + '\n...\n' + output.slice(-100_000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', () => resolve(undefined)));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const spawnedAt = performance.now();
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  return new Promise((resolve, reject) => {
    let done = false;
    const fail = (/** @type {string} */ why) => {
      if (done) return;
      done = true;
      void stop(0);
      reject(new Error(`${o.name}: ${why}\n${output.slice(-4000)}`));
    };
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before it was ready`));
    const succeed = (/** @type {string} */ url) => {
      if (done) return;
      done = true;
      resolve({ name: o.name, url, pid: /** @type {number} */ (child.pid), readyAfterMs: performance.now() - spawnedAt, output: () => output, stop });
    };
    const poll = async () => {
      while (!done) {
        if (Date.now() > deadline) return fail('not ready in time');
        if (o.readyPattern) {
          const line = output.split('\n').find((l) => o.readyPattern?.test(l));
          const url = line && /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0];
          if (url) return succeed(url);
        } else if (o.url && o.healthPath) {
          try {
            const res = await fetch(`${o.url}${o.healthPath}`, { signal: AbortSignal.timeout(1000) });
            await res.arrayBuffer();
            if (res.status === 200) return succeed(o.url);
            // Any answer means it listens: poll faster than the 50 ms start-up pace while it warms up.
            await new Promise((r) => setTimeout(r, 10));
            continue;
          } catch {
            // not listening yet
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    void poll();
  });
}

/**
 * A group of child processes stopped together by pid. With a `layout`, the exchange and the
 * baseline run on `layout.server`, the partners and the receiver on `layout.load`.
 * @param {{ layout?: CpuLayout }} [options]
 * @returns {ProcessGroup}
 */
export function createProcessGroup(options = {}) {
  const serverCpus = options.layout?.server;
  const loadCpus = options.layout?.load;
  /** @type {Set<Child>} */
  const running = new Set();
  /** @param {Child} child */
  const track = (child) => {
    running.add(child);
    return child;
  };

  return {
    async startDspSim({ name, latencyMs = '0' }) {
      const { CLI_PATH } = await distChildProcess();
      return track(
        await spawnNode({
          name,
          script: CLI_PATH,
          args: ['dsp-sim', '--port', '0', '--latency-ms', latencyMs, '--bid-probability', '1', '--cpm-min', '0.5', '--cpm-max', '5', '--name', name, '--seat', name],
          readyPattern: /^http:\/\//,
          cpus: loadCpus,
        }),
      );
    },

    async startExchange(options) {
      const { CLI_PATH } = await distChildProcess();
      const configPath = join(options.dir, 'bench-seed.json');
      await writeFile(
        configPath,
        JSON.stringify({
          seed: {
            publishers: [{ name: 'Bench Publisher', domain: 'bench.example', api_key: options.apiKey }],
            demand_partners: options.partnerUrls.map((endpoint, i) => ({ name: `bench-dsp-${i + 1}`, endpoint, timeout_ms: 1000, gzip: false, currency: 'USD', gvl_vendor_id: BENCH_GVL_VENDOR_ID })),
          },
        }),
      );
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      return track(
        await spawnNode({
          name: 'adx',
          script: CLI_PATH,
          args: ['serve', ...(options.serveArgs ?? [])],
          nodeArgs: options.nodeArgs,
          env: {
            ADX_CONFIG: configPath,
            DATABASE_URL: join(options.dir, 'adx.db'),
            PORT: String(port),
            HOST: '127.0.0.1',
            ADX_PUBLIC_URL: url,
            ADX_ADMIN_KEY: options.adminKey,
            LOG_LEVEL: 'warn',
            NODE_ENV: 'production',
            ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS: options.webhooks ? '1' : '0',
          },
          url,
          // Ready, not just alive: /readyz turns 200 once the hot paths are warm (issue 15).
          healthPath: '/readyz',
          // Warm-up runs before /readyz turns 200: allow for a slow (or busy) machine.
          timeoutMs: 60_000,
          cpus: serverCpus,
        }),
      );
    },

    async startBaseline({ partnerUrls, webhook }) {
      return track(
        await spawnNode({
          name: 'baseline',
          script: BASELINE_SCRIPT,
          args: ['--port', '0', '--partners', partnerUrls.join(','), ...(webhook ? ['--webhook-url', webhook.url, '--webhook-secret', webhook.secret] : [])],
          env: { NODE_ENV: 'production' },
          readyPattern: /baseline listening/,
          cpus: serverCpus,
        }),
      );
    },

    async startWebhookReceiver({ secret, port }) {
      const { CLI_PATH } = await distChildProcess();
      return track(
        await spawnNode({
          name: 'webhook-receiver',
          script: CLI_PATH,
          args: ['webhook-receiver', '--secret', secret, '--port', String(port), '--host', '127.0.0.1'],
          readyPattern: /webhook-receiver listening/,
          timeoutMs: 15_000,
          cpus: loadCpus,
        }),
      );
    },

    async stop(child) {
      running.delete(child);
      await child.stop();
    },

    async stopAll() {
      const all = [...running];
      running.clear();
      await Promise.all(all.map((child) => child.stop()));
    },
  };
}
