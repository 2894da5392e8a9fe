/**
 * `npm run chaos`: the fault matrix of issue 7 against a real exchange process, bounded in time
 * and on 127.0.0.1 only. It starts the exchange from `dist/` (as in production) on a temp SQLite
 * file with two partners (`chaos/dsp.mjs`: a good one and a faulty one whose behaviour each row
 * sets) and one webhook endpoint subscribed to `auction.complete`, received and verified inside
 * this process (`chaos/receiver.mjs`). Each row sends paced bid requests, classifies the answers,
 * and matches every answered bid against the delivered events. It prints one table and exits 0
 * when every row passes (docs/reliability.md, section "Chaos", explains the rows and the rules).
 *
 *   npm run chaos                  full matrix (about 2 minutes)
 *   npm run chaos -- --quick       shorter rows (under a minute)
 *   options: --rows 1,8,10  --rate <req/s>  --duration <s>  --overload-rate <req/s>
 *
 * Every child is stopped by its pid at the end, on SIGINT/SIGTERM, and when the run exceeds its
 * time budget. Importing this module runs the matrix: it is the entry point, not a library.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI_PATH, createProcessGroup } from './processes.mjs';
import { startChaosReceiver } from './receiver.mjs';
import { runSigkillRow, runSigtermRow } from './rows/crash.mjs';
import { goodRequest, bidHeaders } from './rows/kit.mjs';
import { PARTNER_FAULTS, runPartnerRow } from './rows/partners.mjs';
import { runHostileRow, runOverloadRow } from './rows/pressure.mjs';
import { runReceiver500Row, runReceiverDownRow } from './rows/webhooks.mjs';
import { renderTable } from './table.mjs';

const USAGE = 'usage: npm run chaos -- [--quick] [--rows 1,2,...,13] [--rate <req/s>] [--duration <s>] [--overload-rate <req/s>]';
const API_KEY = 'adxk_chaos_publisher_key_0001';
const ADMIN_KEY = 'chaos-admin-key';
const SECRET_KEY = 'chaos-secret-key';
/** Webhook retry schedule of the run, ms: first attempt at once, then every second for a minute. */
const RETRY_SCHEDULE_MS = [0, ...Array(60).fill(1000)];

/** @typedef {(ctx: import('./rows/kit.mjs').RowContext) => Promise<import('./rows/kit.mjs').RowResult>} RowRunner */

/** The matrix, in order: [label, runner]. @type {Array<[string, RowRunner]>} */
const ROWS = [
  ...PARTNER_FAULTS.map((spec, i) => /** @type {[string, RowRunner]} */ ([spec.fault, (ctx) => runPartnerRow(ctx, spec, i + 1)])),
  ['webhook receiver down, then up', runReceiverDownRow],
  ['webhook receiver 500s, then 200', runReceiver500Row],
  ['SIGKILL under load, restart', runSigkillRow],
  ['SIGTERM under load, restart', runSigtermRow],
  ['overload (open loop, 512 connections)', runOverloadRow],
  ['hostile input burst', runHostileRow],
];

/** @param {string[]} argv */
function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      rows: { type: 'string' },
      rate: { type: 'string' },
      duration: { type: 'string' },
      'overload-rate': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const positive = (/** @type {string} */ name, /** @type {string} */ value) => {
    const n = Number(value);
    if (!(Number.isFinite(n) && n > 0)) throw new Error(`--${name} must be a positive number, not ${JSON.stringify(value)}\n${USAGE}`);
    return n;
  };
  const rows = (values.rows ?? ROWS.map((_, i) => i + 1).join(',')).split(',').map((s) => Number(s.trim()));
  if (rows.some((n) => !Number.isInteger(n) || n < 1 || n > ROWS.length)) throw new Error(`--rows takes numbers from 1 to ${ROWS.length}\n${USAGE}`);
  const quick = values.quick;
  return {
    rows,
    quick,
    settings: {
      ratePerSec: positive('rate', values.rate ?? (quick ? '100' : '150')),
      durationSec: positive('duration', values.duration ?? (quick ? '1.5' : '3')),
      drainMs: quick ? 6000 : 8000,
      tmaxMs: 200,
      overloadRatePerSec: positive('overload-rate', values['overload-rate'] ?? '3000'),
      overloadSec: quick ? 2 : 3,
      hostileCount: quick ? 120 : 300,
      quick,
    },
  };
}

/** A TCP port free on 127.0.0.1 now (the exchange keeps it across restarts). @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** @param {string} url @param {RequestInit} [init] @returns {Promise<any>} */
async function json(url, init) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(CLI_PATH)) throw new Error('dist/ is missing: run `npm run build` first (npm run chaos does it)');
  const log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);
  const budgetMs = options.quick ? 90_000 : 240_000;
  const group = createProcessGroup();
  const dir = await mkdtemp(join(tmpdir(), 'adx-chaos-'));
  const receiver = await startChaosReceiver();
  let stopping = false;
  const cleanup = async () => {
    await group.stopAll();
    await receiver.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  const abort = async (/** @type {number} */ code, /** @type {string} */ why) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping every child process`);
    await cleanup();
    process.exit(code);
  };
  process.once('SIGINT', () => void abort(130, 'SIGINT'));
  process.once('SIGTERM', () => void abort(143, 'SIGTERM'));
  const watchdog = setTimeout(() => void abort(1, `time budget of ${budgetMs / 1000} s exceeded`), budgetMs);

  const started = performance.now();
  const loadAtStart = loadavg();
  /** @type {import('./rows/kit.mjs').RowResult[]} */
  const results = [];
  try {
    const good = await group.startDsp({ name: 'chaos-good', mode: 'bid', price: 1 });
    const faulty = await group.startDsp({ name: 'chaos-faulty', mode: 'nobid', price: 1 });
    const exchangeOptions = {
      dir,
      port: await freePort(),
      apiKey: API_KEY,
      adminKey: ADMIN_KEY,
      secretKey: SECRET_KEY,
      partners: [
        { name: 'chaos-good', endpoint: good.url },
        { name: 'chaos-faulty', endpoint: faulty.url },
      ],
      retryScheduleMs: RETRY_SCHEDULE_MS,
    };
    let exchange = await group.startExchange(exchangeOptions);
    const origin = exchange.url;
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const partners = (await json(`${origin}/v1/demand-partners`, { headers: admin })).data;
    const idOf = (/** @type {string} */ name) => partners.find((/** @type {any} */ p) => p.name === name)?.id;
    const endpoint = await json(`${origin}/v1/webhook-endpoints`, { method: 'POST', headers: admin, body: JSON.stringify({ url: receiver.url, events: ['auction.complete'] }) });
    receiver.setSecret(endpoint.secret);

    /** @type {import('./rows/kit.mjs').RowContext} */
    const ctx = {
      settings: options.settings,
      exchange: () => exchange,
      origin,
      restartExchange: async () => (exchange = await group.startExchange(exchangeOptions)),
      setFaultyMode: async (mode) => void (await json(`${new URL(faulty.url).origin}/control`, { method: 'POST', body: JSON.stringify({ mode }) })),
      goodStats: () => json(`${new URL(good.url).origin}/stats`),
      partnerIds: { good: idOf('chaos-good'), faulty: idOf('chaos-faulty') },
      receiver,
      apiKey: API_KEY,
      log,
    };
    // Warm-up: the first auctions pay for connection set-up and lazy compilation.
    for (let i = 0; i < 20; i++) {
      await fetch(`${origin}/v1/openrtb/2.5/bidrequest`, { method: 'POST', headers: bidHeaders(ctx), body: JSON.stringify(goodRequest(`warm-${i}`, 500)) }).then((r) => r.arrayBuffer());
    }

    log(`adx chaos: rows ${options.rows.join(',')}, ${options.settings.ratePerSec} req/s for ${options.settings.durationSec} s per row, tmax ${options.settings.tmaxMs} ms, exchange pid ${exchange.pid}`);
    for (const n of options.rows) {
      const [label, runRow] = /** @type {[string, RowRunner]} */ (ROWS[n - 1]);
      log(`row ${n}: ${label} ...`);
      const rowStarted = performance.now();
      /** @type {import('./rows/kit.mjs').RowResult} */
      let result;
      try {
        result = await runRow(ctx);
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        result = { fault: label, requests: 0, s200: 0, s204: 0, s4xx: 0, s5xx: 0, dropped: 0, late: 0, eventsExpected: 0, eventsLost: 0, notes: [], failures: [`harness error: ${message}`] };
      }
      result.fault = `${n}. ${result.fault}`;
      if (!exchange.running()) {
        const exit = await exchange.exited;
        const tail = exchange.output().trim().split('\n').slice(-3).join(' / ');
        result.failures.push(`exchange exited (${exit.code ?? exit.signal}) during the row: ${tail.slice(0, 300)}`);
        exchange = await group.startExchange(exchangeOptions);
      }
      results.push(result);
      log(`row ${n}: done in ${((performance.now() - rowStarted) / 1000).toFixed(1)} s`);
    }
  } finally {
    clearTimeout(watchdog);
    await cleanup();
  }

  const { text, pass } = renderTable(results);
  const stats = receiver.stats();
  const signatureOk = stats.failed === 0;
  const load = (/** @type {number[]} */ l) => l.map((x) => x.toFixed(1)).join(' ');
  process.stdout.write(
    `\nadx chaos (${new Date().toISOString()}, ${((performance.now() - started) / 1000).toFixed(0)} s, node ${process.version}, ${availableParallelism()} CPUs, ` +
      `load average ${load(loadAtStart)} at start, ${load(loadavg())} at end; ${options.settings.ratePerSec} req/s paced, tmax ${options.settings.tmaxMs} ms + 20 ms slack):\n\n${text}\n` +
      `receiver: ${stats.verified} verified, ${stats.duplicates} duplicates, ${stats.refused} refused with 500 on purpose, ${stats.failed} failed signatures${signatureOk ? '' : ' (FAIL)'}\n`,
  );
  process.exit(pass && signatureOk ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`chaos failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
