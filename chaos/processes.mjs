/**
 * Child processes of the chaos run, each on 127.0.0.1: the exchange (`node dist/cli/index.js
 * serve`, as in production, ready when `/healthz` answers 200) and the chaos partners
 * (`chaos/dsp.mjs`). Every child is tracked in one group and stopped by its own pid; nothing is
 * ever stopped by name. Importing this module does nothing.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (chaos/..). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built CLI (`npm run chaos` builds it first through `prechaos`). */
export const CLI_PATH = fileURLToPath(new URL('../dist/cli/index.js', import.meta.url));
const DSP_SCRIPT = fileURLToPath(new URL('./dsp.mjs', import.meta.url));

/**
 * A started child process.
 * @typedef {object} Child
 * @property {string} name label for messages
 * @property {string} url `http://127.0.0.1:<port>` (for a partner: its OpenRTB endpoint)
 * @property {number} pid
 * @property {() => string} output the head and tail of what it printed (stdout + stderr)
 * @property {(signal: NodeJS.Signals) => void} signal sends `signal` to this pid
 * @property {Promise<{ code: number | null, signal: string | null, atMs: number }>} exited resolves on exit (`atMs`: performance.now())
 * @property {() => boolean} running
 * @property {(graceMs?: number) => Promise<void>} stop SIGTERM, SIGKILL after `graceMs` (default 10 000); resolves on exit
 */

/**
 * Exchange settings that survive a restart (same port, same SQLite file, same seed).
 * @typedef {object} ExchangeOptions
 * @property {string} dir temp folder holding `adx.db` and the seed config
 * @property {number} port fixed TCP port, so notice URLs minted before a restart still reach it
 * @property {string} apiKey the seeded publisher's API key
 * @property {string} adminKey ADX_ADMIN_KEY
 * @property {string} secretKey ADX_SECRET_KEY (notice tokens stay valid across restarts)
 * @property {Array<{ name: string, endpoint: string }>} partners seeded demand partners
 * @property {number[]} retryScheduleMs ADX_WEBHOOK_RETRY_SCHEDULE_MS, ms
 */

/**
 * Spawns `node script ...args` and resolves once `ready(output)` yields a URL.
 * @param {{ name: string, script: string, args: string[], env?: NodeJS.ProcessEnv, ready: (output: string) => Promise<string | undefined>, timeoutMs?: number }} o
 * @returns {Promise<Child>}
 */
function spawnNode(o) {
  const child = spawn(process.execPath, [o.script, ...o.args], { cwd: REPO_ROOT, env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onData = (/** @type {Buffer} */ chunk) => {
    // Head and tail only: a chatty child must not grow the harness's memory.
    output += chunk.toString('utf8');
    if (output.length > 100_000) output = `${output.slice(0, 10_000)}\n...\n${output.slice(-50_000)}`;
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  /** @type {Promise<{ code: number | null, signal: string | null, atMs: number }>} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, atMs: performance.now() })));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async (graceMs = 10_000) => {
    if (!running()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const deadline = performance.now() + (o.timeoutMs ?? 30_000);
  return new Promise((resolve, reject) => {
    let done = false;
    const fail = (/** @type {string} */ why) => {
      if (done) return;
      done = true;
      void stop(0);
      reject(new Error(`${o.name}: ${why}\n${output.slice(-3000)}`));
    };
    void exited.then(({ code, signal }) => fail(`exited (${code ?? signal}) before it was ready`));
    const poll = async () => {
      while (!done) {
        if (performance.now() > deadline) return fail('not ready in time');
        const url = await o.ready(output);
        if (url && !done) {
          done = true;
          return resolve({
            name: o.name,
            url,
            pid: /** @type {number} */ (child.pid),
            output: () => output,
            signal: (signal) => void child.kill(signal),
            exited,
            running,
            stop,
          });
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    void poll();
  });
}

/**
 * A group of children stopped together, each by its pid.
 * @returns {{ startDsp: (o: { name: string, mode: string, price: number }) => Promise<Child>, startExchange: (o: ExchangeOptions) => Promise<Child>, stopAll: () => Promise<void> }}
 */
export function createProcessGroup() {
  /** @type {Set<Child>} */
  const children = new Set();
  /** @param {Child} child */
  const track = (child) => {
    children.add(child);
    void child.exited.then(() => children.delete(child));
    return child;
  };
  return {
    async startDsp({ name, mode, price }) {
      return track(
        await spawnNode({
          name: `dsp ${name}`,
          script: DSP_SCRIPT,
          args: ['--name', name, '--mode', mode, '--price', String(price), '--port', '0'],
          ready: async (out) => /chaos-dsp \S+ listening on (http:\/\/127\.0\.0\.1:\d+\S*)/.exec(out)?.[1],
        }),
      );
    },

    async startExchange(o) {
      const configPath = join(o.dir, 'chaos-seed.json');
      await writeFile(
        configPath,
        JSON.stringify({
          seed: {
            publishers: [{ name: 'Chaos Publisher', domain: 'chaos.example', api_key: o.apiKey }],
            demand_partners: o.partners.map((p) => ({ name: p.name, endpoint: p.endpoint, timeout_ms: 1000, gzip: false, currency: 'USD' })),
          },
        }),
      );
      const url = `http://127.0.0.1:${o.port}`;
      return track(
        await spawnNode({
          name: 'adx',
          script: CLI_PATH,
          args: ['serve'],
          env: {
            ADX_CONFIG: configPath,
            DATABASE_URL: join(o.dir, 'adx.db'),
            PORT: String(o.port),
            HOST: '127.0.0.1',
            ADX_PUBLIC_URL: url,
            ADX_ADMIN_KEY: o.adminKey,
            ADX_SECRET_KEY: o.secretKey,
            ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
            ADX_WEBHOOK_RETRY_SCHEDULE_MS: o.retryScheduleMs.join(','),
            LOG_LEVEL: 'warn',
            NODE_ENV: 'production',
          },
          ready: async () => {
            try {
              const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
              await res.arrayBuffer();
              return res.status === 200 ? url : undefined;
            } catch {
              return undefined; // not listening yet
            }
          },
        }),
      );
    },

    async stopAll() {
      const all = [...children];
      children.clear();
      await Promise.all(all.map((child) => child.stop(5000)));
    },
  };
}
