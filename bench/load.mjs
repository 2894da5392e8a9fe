/**
 * Load generation for the benchmark, against 127.0.0.1 only.
 *
 * - `runClosedLoop`: autocannon (programmatic API) with N connections as fast as the server
 *   answers, or at `overallRate` (autocannon's limiter: each connection sends its share of the
 *   rate at the start of every second, then waits). Throughput runs and the 2x-saturation run.
 *   When `wrk` is on the PATH and no rate is needed, `runWrk` drives the throughput runs instead
 *   (`--loader wrk`, the default when wrk is installed): a C load generator takes far less CPU
 *   than autocannon in the harness, which matters when it shares the machine with the server.
 * - `runPaced`: an open-loop generator (undici Pool) sending at evenly spaced instants, latency
 *   measured from each request's scheduled instant, so queueing is counted (no coordinated
 *   omission). Used for the latency columns at a fixed 1,000 req/s, because autocannon's limiter
 *   sends each second's share in a burst.
 *
 * Every result counts each answer's latency (ms, from the request written to the response
 * complete; for `runPaced` from its scheduled instant) and how many exceeded `tmaxMs`.
 * Importing this module does nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';

const require = createRequire(import.meta.url);
/** autocannon is CommonJS without type declarations; loaded with require on first use. */
const AUTOCANNON = 'autocannon';

/**
 * What one load run measured.
 * @typedef {object} LoadResult
 * @property {number} requestsPerSec answers per second over the run (any status)
 * @property {number} answers responses received
 * @property {number} durationSec measured time, s
 * @property {Record<string, number>} statusCounts answers per HTTP status
 * @property {number} non2xx answers outside 200..299 (204 is 2xx) plus request errors and timeouts
 * @property {number} errors connection errors and timeouts (no answer)
 * @property {number} late answers slower than `tmaxMs`
 * @property {{ p50: number, p99: number, max: number } | undefined} latencyMs percentiles of the answers' latency, ms
 * @property {{ p50: number, p99: number, max: number }} [sendLagMs] paced runs: how late the load generator itself sent each request after its scheduled instant, ms (its own event loop and CPU share); this lag is part of latencyMs
 */

/**
 * @typedef {object} LoadTarget
 * @property {string} url base URL, `http://127.0.0.1:<port>`
 * @property {string} path request path
 * @property {Record<string, string>} headers
 * @property {string | Buffer} body
 * @property {number} tmaxMs the request's tmax; answers slower than this are `late`
 */

/** @param {number[]} values @param {number} p */
function percentile(values, p) {
  if (values.length === 0) return 0;
  return values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;
}

/** @param {number[]} latencies */
function summarize(latencies) {
  if (latencies.length === 0) return undefined;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? 0 };
}

/** @param {Record<string, number>} statusCounts */
function countNon2xx(statusCounts) {
  let n = 0;
  for (const [status, count] of Object.entries(statusCounts)) if (!(Number(status) >= 200 && Number(status) < 300)) n += count;
  return n;
}

/**
 * autocannon against `target`.
 * @param {LoadTarget & { durationSec: number, connections: number, overallRate?: number }} o
 * @returns {Promise<LoadResult>}
 */
export async function runClosedLoop(o) {
  /** @type {any} autocannon ships no types */
  const autocannon = require(AUTOCANNON);
  /** @type {number[]} */
  const latencies = [];
  /** @type {Record<string, number>} */
  const statusCounts = {};
  let late = 0;
  const started = performance.now();
  const instance = autocannon({
    url: `${o.url}${o.path}`,
    method: 'POST',
    headers: o.headers,
    body: o.body,
    connections: o.connections,
    duration: o.durationSec,
    timeout: 10,
    ...(o.overallRate ? { overallRate: o.overallRate } : {}),
  });
  instance.on('response', (/** @type {unknown} */ _client, /** @type {number} */ status, /** @type {number} */ _bytes, /** @type {number} */ ms) => {
    latencies.push(ms);
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    if (ms > o.tmaxMs) late++;
  });
  const result = await new Promise((resolve, reject) => {
    instance.on('done', resolve);
    instance.on('error', reject);
  });
  const durationSec = (performance.now() - started) / 1000;
  const errors = Number(result.errors ?? 0);
  return {
    requestsPerSec: latencies.length / durationSec,
    answers: latencies.length,
    durationSec,
    statusCounts,
    non2xx: countNon2xx(statusCounts) + errors,
    errors,
    late,
    latencyMs: summarize(latencies),
  };
}

/**
 * Open-loop load at `ratePerSec`, requests sent at evenly spaced instants over an undici Pool of
 * `connections`; each latency counts from the scheduled instant.
 * @param {LoadTarget & { durationSec: number, ratePerSec: number, connections: number }} o
 * @returns {Promise<LoadResult>}
 */
export async function runPaced(o) {
  const pool = new Pool(o.url, { connections: o.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  /** @type {number[]} */
  const latencies = [];
  /** @type {number[]} */
  const sendLags = [];
  /** @type {Record<string, number>} */
  const statusCounts = {};
  let late = 0;
  let errors = 0;
  const intervalMs = 1000 / o.ratePerSec;
  const total = Math.round(o.durationSec * o.ratePerSec);
  /** @type {Promise<void>[]} */
  const inFlight = [];
  const started = performance.now();
  /** @param {number} scheduledAt */
  const send = async (scheduledAt) => {
    sendLags.push(performance.now() - scheduledAt);
    try {
      const res = await pool.request({ method: 'POST', path: o.path, headers: o.headers, body: o.body, headersTimeout: 10_000, bodyTimeout: 10_000 });
      await res.body.dump();
      const ms = performance.now() - scheduledAt;
      latencies.push(ms);
      statusCounts[res.statusCode] = (statusCounts[res.statusCode] ?? 0) + 1;
      if (ms > o.tmaxMs) late++;
    } catch {
      errors++;
    }
  };
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    const due = Math.min(total, Math.floor((now - started) / intervalMs) + 1);
    for (; sent < due; sent++) inFlight.push(send(started + sent * intervalMs));
    const nextAt = started + sent * intervalMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextAt - performance.now())));
  }
  await Promise.all(inFlight);
  const durationSec = (performance.now() - started) / 1000;
  await pool.close();
  return {
    requestsPerSec: latencies.length / durationSec,
    answers: latencies.length,
    durationSec,
    statusCounts,
    non2xx: countNon2xx(statusCounts) + errors,
    errors,
    late,
    latencyMs: summarize(latencies),
    sendLagMs: summarize(sendLags),
  };
}

/** True when `wrk` is on the PATH. */
export function wrkAvailable() {
  const which = spawnSync('which', ['wrk'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '';
}

/**
 * wrk against `target` (throughput, closed loop): requests/s and non-2xx from its summary,
 * p50/p99/max from its latency distribution, and `late` counted exactly by a Lua `done()` hook
 * walking wrk's latency histogram (microsecond bins) for answers slower than `tmaxMs`. wrk does
 * not tell 200 from 204 (`statusCounts` stays empty; the harness reads the exchange's own
 * counters for that). With `cpus`, wrk runs under `taskset -c <cpus>` with one thread per CPU.
 * @param {LoadTarget & { durationSec: number, connections: number, cpus?: string, threads?: number }} o
 * @returns {Promise<LoadResult>}
 */
export async function runWrk(o) {
  const dir = await mkdtemp(join(tmpdir(), 'adx-bench-wrk-'));
  try {
    const bodyPath = join(dir, 'body.bin');
    await writeFile(bodyPath, o.body);
    const script = join(dir, 'post.lua');
    const headerLines = Object.entries(o.headers)
      .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
      .join('\n');
    // latency(i) answers the i-th non-empty bin of wrk's histogram: (value in us, count); past the
    // last bin wrk 4.1 answers value 0 with a stale count, so a 0 value ends the walk.
    const lateHook = `done = function(summary, latency, requests)
  local limit = ${Math.round(o.tmaxMs * 1000)}
  local late, i = 0, 1
  while true do
    local value, count = latency(i)
    if value == nil or value == 0 or count == nil or count == 0 then break end
    if value > limit then late = late + count end
    i = i + 1
  end
  io.write(string.format("adx-bench-late %d\\n", late))
end
`;
    await writeFile(
      script,
      `wrk.method = "POST"\n${headerLines}\nlocal f = io.open(${JSON.stringify(bodyPath)}, "rb")\nwrk.body = f:read("*a")\nf:close()\n${lateHook}`,
    );
    const threads = Math.max(1, Math.min(o.threads ?? 2, o.connections));
    const args = ['-t', String(threads), '-c', String(o.connections), '-d', `${o.durationSec}s`, '--latency', '-s', script, `${o.url}${o.path}`];
    const [command, argv] = o.cpus ? ['taskset', ['-c', o.cpus, 'wrk', ...args]] : ['wrk', args];
    const text = await new Promise((resolve, reject) => {
      const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.on('error', reject);
      child.on('close', () => resolve(out));
    });
    const num = (/** @type {RegExp} */ re) => Number(re.exec(text)?.[1] ?? 0);
    const ms = (/** @type {RegExp} */ re) => {
      const m = re.exec(text);
      if (!m) return 0;
      const unit = m[2];
      return Number(m[1]) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);
    };
    const answers = num(/(\d+) requests in/);
    const non2xx = num(/Non-2xx or 3xx responses:\s+(\d+)/) + num(/Socket errors:.*timeout (\d+)/);
    return {
      requestsPerSec: num(/Requests\/sec:\s+([\d.]+)/),
      answers,
      durationSec: o.durationSec,
      statusCounts: {},
      non2xx,
      errors: num(/Socket errors:.*timeout (\d+)/),
      late: num(/adx-bench-late (\d+)/),
      latencyMs: { p50: ms(/50%\s+([\d.]+)(us|ms|s)/), p99: ms(/99%\s+([\d.]+)(us|ms|s)/), max: ms(/Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/) },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
