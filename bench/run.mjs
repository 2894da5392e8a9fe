/**
 * `npm run bench`: the adx benchmark (issue 6). Starts dsp-sim partners, the exchange from
 * `dist/` (as in production) and a bare node:http baseline as separate processes on 127.0.0.1,
 * measures each scenario side by side against the baseline in the same run (alternating runs),
 * and prints one table as fixed-width text, then as Markdown. docs/performance.md explains the
 * scenarios and columns.
 *
 *   npm run bench                         full run (scenarios a-g and cold, 10 s runs, 3 pairs)
 *   npm run bench -- --quick              3 s runs, scenarios a, d and cold, 2 pairs (< 90 s)
 *   options: --duration <s> --scenarios a,b,... --pairs <n> --connections <n>
 *            --overload-connections <n> --fixed-rate <req/s> --fixed-rate-loader paced|autocannon
 *            --loader autocannon|wrk --workers <n> --pin auto|off --cpu-prof <dir>
 *            --node-args="<node flags for the exchange, e.g. --max-semi-space-size=32>"
 *
 * With 2 or more CPUs and taskset, the server under test (the exchange or the baseline) runs on
 * CPU 0 (CPUs 0..N-1 with `--workers N`) and this harness, wrk, the partners and the webhook
 * receiver on the others, so a ratio compares one core with one core; the header says so.
 *
 * Every child is stopped by its pid at the end, on SIGINT/SIGTERM, and when the whole run
 * exceeds its time budget.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { renderSummary, summarizeCpuProfile } from './cpu-profile-summary.mjs';
import { wrkAvailable } from './load.mjs';
import { REPO_ROOT, cpuLayout, createProcessGroup, pinSelf } from './processes.mjs';
import { runColdStart } from './run-cold-start.mjs';
import { runScenario } from './run-scenario.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { renderMarkdown, renderText } from './table.mjs';

const USAGE = `usage: npm run bench -- [--quick] [--duration <s>] [--scenarios a,b,c,d,e,f] [--pairs <n>]
  [--connections <n>] [--overload-connections <n>] [--fixed-rate <req/s>]
  [--fixed-rate-loader paced|autocannon] [--loader autocannon|wrk] [--workers <n>|auto] [--pin auto|off] [--cpu-prof <dir>]
  [--node-args="<node flags of the exchange>"]`;

/** Parses argv into run options. @param {string[]} argv */
function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      scenarios: { type: 'string' },
      pairs: { type: 'string' },
      connections: { type: 'string', default: '32' },
      'overload-connections': { type: 'string', default: '400' },
      'fixed-rate': { type: 'string', default: '1000' },
      'fixed-rate-loader': { type: 'string', default: 'paced' },
      loader: { type: 'string' },
      workers: { type: 'string' },
      pin: { type: 'string', default: 'auto' },
      'cpu-prof': { type: 'string' },
      'node-args': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const positive = (/** @type {string} */ name, /** @type {string | undefined} */ value) => {
    const n = Number(value);
    if (!(Number.isFinite(n) && n > 0)) throw new Error(`--${name} must be a positive number, not ${JSON.stringify(value)}\n${USAGE}`);
    return n;
  };
  const ids = (values.scenarios ?? (values.quick ? 'a,d,cold' : 'a,b,c,d,e,f,g,cold')).split(',').map((s) => s.trim().toLowerCase());
  const unknown = ids.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  const fixedRateLoader = values['fixed-rate-loader'];
  if (fixedRateLoader !== 'paced' && fixedRateLoader !== 'autocannon') throw new Error(`--fixed-rate-loader must be paced or autocannon\n${USAGE}`);
  const hasWrk = wrkAvailable();
  const loader = values.loader ?? (hasWrk ? 'wrk' : 'autocannon');
  if (loader === 'wrk' && !hasWrk) throw new Error('--loader wrk: wrk is not on the PATH (Debian: apt-get install wrk)');
  if (values.pin !== 'auto' && values.pin !== 'off') throw new Error(`--pin must be auto or off\n${USAGE}`);
  const workers = values.workers === undefined ? undefined : values.workers === 'auto' ? availableParallelism() : Math.round(positive('workers', values.workers));
  if (loader !== 'wrk' && loader !== 'autocannon') throw new Error(`--loader must be autocannon or wrk\n${USAGE}`);
  return {
    scenarioIds: ids,
    durationSec: positive('duration', values.duration ?? (values.quick ? '3' : '10')),
    pairs: Math.round(positive('pairs', values.pairs ?? (values.quick ? '2' : '3'))),
    connections: Math.round(positive('connections', values.connections)),
    overloadConnections: Math.round(positive('overload-connections', values['overload-connections'])),
    fixedRate: positive('fixed-rate', values['fixed-rate']),
    fixedRateLoader: /** @type {'paced' | 'autocannon'} */ (fixedRateLoader),
    loader: /** @type {'autocannon' | 'wrk'} */ (loader),
    loaderNote: loader === 'wrk' ? 'wrk' : hasWrk ? 'autocannon (asked for)' : 'autocannon (wrk not installed)',
    workers,
    pin: values.pin === 'auto',
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']),
    nodeArgs: (values['node-args'] ?? '').split(/\s+/).filter((flag) => flag !== ''),
    quick: values.quick,
  };
}

/** Whether `adx serve` accepts `--workers` (it may, once issue 6 part 2 lands). */
function serveSupportsWorkers() {
  const help = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/cli/index.js'), 'serve', '--help'], { encoding: 'utf8', timeout: 15_000 });
  return /--workers\b/.test(`${help.stdout}${help.stderr}`);
}

/** CPUs of the machine, read before the harness pins itself. */
const MACHINE_CPUS = availableParallelism();

async function main() {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(join(REPO_ROOT, 'dist/cli/index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm run bench does it)');
  const log = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
  /** @type {string[]} */
  const serveArgs = [];
  /** @type {string[]} */
  const notes = [];
  if (options.workers !== undefined) {
    if (serveSupportsWorkers()) serveArgs.push('--workers', String(options.workers));
    else notes.push(`--workers ${options.workers} ignored: adx serve does not support --workers yet`);
  }
  // Scenario (e) offers twice the saturation measured in (a): run (a) first when both are asked for.
  const selected = SCENARIOS.filter((s) => options.scenarioIds.includes(s.id));
  const partnerCount = Math.max(...selected.map((s) => s.partners));
  const perScenarioSec = (options.pairs * 2 + 3) * options.durationSec + 40;
  const budgetMs = (selected.length * perScenarioSec + 60) * 1000;

  const layout = options.pin ? cpuLayout(options.workers ?? 1) : undefined;
  // The harness runs autocannon and the paced loader itself: keep it off the server's CPUs.
  if (layout) pinSelf(layout.load);
  const group = createProcessGroup({ layout });
  const tmpDir = await mkdtemp(join(tmpdir(), 'adx-bench-'));
  let stopping = false;
  const shutdown = async (/** @type {number} */ code, /** @type {string} */ why) => {
    if (stopping) return;
    stopping = true;
    if (why) process.stderr.write(`${why}: stopping every child process\n`);
    await group.stopAll();
    await rm(tmpDir, { recursive: true, force: true });
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(130, 'SIGINT'));
  process.once('SIGTERM', () => void shutdown(143, 'SIGTERM'));
  const watchdog = setTimeout(() => void shutdown(1, `time budget of ${Math.round(budgetMs / 1000)} s exceeded`), budgetMs);

  log(
    `adx bench: scenarios ${selected.map((s) => s.id).join(',')}, ${options.pairs} x (baseline, adx) runs of ${options.durationSec} s, ` +
      `${options.connections} connections, load by ${options.loaderNote}; latency at ${options.fixedRate} req/s offered (${options.fixedRateLoader})`,
  );
  const pinning = layout
    ? `server under test on CPU ${layout.server}, load generator + partners + receiver on CPU ${layout.load}${layout.shared ? ' (shared: the server asked for every CPU)' : ''}`
    : options.pin
      ? 'not pinned (fewer than 2 CPUs or no taskset): everything shares every CPU'
      : 'not pinned (--pin off)';
  log(`CPUs: ${MACHINE_CPUS}; ${pinning}; exchange workers: ${options.workers ?? 1}${options.nodeArgs.length > 0 ? `; exchange node flags: ${options.nodeArgs.join(' ')}` : ''}`);
  const started = Date.now();
  const loadAtStart = loadavg();
  /** @type {import('./table.mjs').ScenarioFigures[]} */
  const rows = [];
  try {
    const sims = [];
    for (let i = 1; i <= partnerCount; i++) sims.push(await group.startDspSim({ name: `bench-dsp-${i}` }));
    const partnerUrls = sims.map((s) => s.url);
    /** @type {number | undefined} */
    let saturationRps;
    const settings = {
      durationSec: options.durationSec,
      warmupSec: options.quick ? 1 : 2,
      pairs: options.pairs,
      connections: options.connections,
      overloadConnections: options.overloadConnections,
      fixedRate: options.fixedRate,
      fixedRateLoader: options.fixedRateLoader,
      loader: options.loader,
      serveArgs,
      layout,
      workers: options.workers ?? 1,
      nodeArgs: [...options.nodeArgs, ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [])],
      tmpDir,
      log,
    };
    for (const scenario of selected) {
      if (scenario.overload && saturationRps === undefined) {
        // (a) was not selected: measure the exchange's saturation with (a)'s setup first.
        log(`${scenario.title}: measuring saturation with scenario (a)'s setup (1 pair)`);
        const a = SCENARIOS.find((s) => s.id === 'a');
        if (!a) throw new Error('scenario a is missing');
        const sat = await runScenario({ scenario: a, group, partnerUrls, settings: { ...settings, pairs: 1 } });
        saturationRps = sat.figures.adxRps;
      }
      const result =
        scenario.kind === 'cold-start'
          ? await runColdStart({ scenario, group, partnerUrls, settings })
          : await runScenario({ scenario, group, partnerUrls, settings, saturationRps });
      if (scenario.id === 'a') saturationRps = result.figures.adxRps;
      rows.push(result.figures);
      notes.push(...result.notes);
    }
  } finally {
    clearTimeout(watchdog);
    await group.stopAll();
    await rm(tmpDir, { recursive: true, force: true });
  }

  const load = (/** @type {number[]} */ l) => l.map((x) => x.toFixed(1)).join(' ');
  log(
    `\nadx bench results (${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, node ${process.version}, ` +
      `${MACHINE_CPUS} CPUs, load average at start ${load(loadAtStart)}, at end ${load(loadavg())}):`,
  );
  log(`${pinning}; exchange workers: ${options.workers ?? 1}${options.nodeArgs.length > 0 ? `; exchange node flags: ${options.nodeArgs.join(' ')}` : ''}; throughput load by ${options.loaderNote}\n`);
  if ((options.workers ?? 1) > 1) {
    notes.push(`--workers ${options.workers}: exchange counters summed over every worker (loop delay: the worst worker's); peak RSS is the primary's plus its workers'`);
  }
  log(renderText(rows));
  if (notes.length > 0) log(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
  if (options.cpuProfDir) {
    const files = (await readdir(options.cpuProfDir)).filter((f) => f.endsWith('.cpuprofile'));
    for (const file of files) {
      const profile = JSON.parse(await readFile(join(options.cpuProfDir, file), 'utf8'));
      log(`\nCPU profile ${file}\n${renderSummary(summarizeCpuProfile(profile, 15))}`);
    }
  }
  log(`\nMarkdown:\n\n${renderMarkdown(rows)}\n`);
}

main().catch(async (error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
