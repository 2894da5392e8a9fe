/**
 * The benchmark's result table: one row per scenario, printed as fixed-width text and as
 * Markdown. Cells are strings already formatted by `formatRow`; missing figures print as `-`,
 * a scenario that could not run prints `n/a (<reason>)` across the figures. Importing this
 * module does nothing.
 */

/**
 * Figures of one scenario (undefined = not measured).
 * @typedef {object} ScenarioFigures
 * @property {string} scenario label
 * @property {number} [adxRps] median req/s of the exchange over its runs
 * @property {number} [baselineRps] median req/s of the baseline over its runs
 * @property {number} [p50Ms] exchange latency at the fixed offered rate, ms
 * @property {number} [p99Ms]
 * @property {number} [maxMs]
 * @property {number} [adxP99BoundMs] at the fixed offered rate, the bucket bound (ms) of the exchange's own p99 (arrival to outcome, by its histogram): separates the exchange from the harness's share of p99
 * @property {number} [non2xx] exchange answers outside 2xx (204 is 2xx), plus errors, over all its runs
 * @property {number} [late] exchange answers slower than tmax as the client saw them, over all its throughput runs
 * @property {number} [adxLate] answers the exchange itself counted as sent after tmax (`adx_bid_answers_late_total`), over all its runs
 * @property {number} [loopP99Ms] exchange event-loop delay p99 during the fixed-rate run, ms (sampling resolution subtracted)
 * @property {number} [loopMaxMs] exchange event-loop delay max during the fixed-rate run, ms
 * @property {number} [winsPerSec] bid responses with a winning bid per second during the exchange's throughput runs (median)
 * @property {number} [webhooksPerSec] verified deliveries per second at the receiver during the exchange's runs
 * @property {number[]} [outboxDepths] outbox depth at the end of each of the exchange's throughput runs
 * @property {number} [peakRssMiB] peak RSS of the exchange process, MiB
 * @property {string} [na] why the scenario could not run
 */

/** Column headers, in order. */
export const COLUMNS = [
  'scenario',
  'req/s adx',
  'req/s base',
  'ratio',
  'p50 ms',
  'p99 ms',
  'max ms',
  'p99@adx <=',
  'loop p99',
  'loop max',
  'non-2xx',
  'late>tmax',
  'late@adx',
  'wins/s',
  'webhooks/s',
  'outbox end',
  'peak RSS MiB',
];

/** @param {number | undefined} n @param {number} digits */
function fixed(n, digits) {
  return n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);
}

/**
 * The cells of one row, in COLUMNS order.
 * @param {ScenarioFigures} f
 * @returns {string[]}
 */
export function formatRow(f) {
  if (f.na) return [f.scenario, `n/a (${f.na})`, ...COLUMNS.slice(2).map(() => '')];
  const ratio = f.adxRps !== undefined && f.baselineRps ? f.adxRps / f.baselineRps : undefined;
  return [
    f.scenario,
    fixed(f.adxRps, 0),
    fixed(f.baselineRps, 0),
    fixed(ratio, 2),
    fixed(f.p50Ms, 2),
    fixed(f.p99Ms, 2),
    fixed(f.maxMs, 1),
    f.adxP99BoundMs === undefined ? '-' : String(f.adxP99BoundMs),
    fixed(f.loopP99Ms, 1),
    fixed(f.loopMaxMs, 1),
    f.non2xx === undefined ? '-' : String(f.non2xx),
    f.late === undefined ? '-' : String(f.late),
    f.adxLate === undefined ? '-' : String(f.adxLate),
    fixed(f.winsPerSec, 0),
    fixed(f.webhooksPerSec, 0),
    f.outboxDepths === undefined ? '-' : f.outboxDepths.join('/'),
    fixed(f.peakRssMiB, 0),
  ];
}

/**
 * Fixed-width text table (first column left-aligned, the others right-aligned).
 * @param {ScenarioFigures[]} rows
 * @returns {string}
 */
export function renderText(rows) {
  const cells = [COLUMNS, ...rows.map(formatRow)];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.filter((r) => !(r[1] ?? '').startsWith('n/a') || i < 2).map((r) => (r[i] ?? '').length)));
  const line = (/** @type {string[]} */ r) => {
    if ((r[1] ?? '').startsWith('n/a')) return `${(r[0] ?? '').padEnd(widths[0] ?? 0)}  ${r[1]}`;
    return r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  };
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(COLUMNS), rule, ...cells.slice(1).map(line)].join('\n');
}

/**
 * GitHub-flavoured Markdown table.
 * @param {ScenarioFigures[]} rows
 * @returns {string}
 */
export function renderMarkdown(rows) {
  const head = `| ${COLUMNS.join(' | ')} |`;
  const align = `| ${COLUMNS.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`;
  const body = rows.map((f) => `| ${formatRow(f).join(' | ')} |`);
  return [head, align, ...body].join('\n');
}

/**
 * Median of a list (mean of the two middle values for an even count); undefined when empty.
 * @param {number[]} values
 * @returns {number | undefined}
 */
export function median(values) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
