/**
 * Summarises a V8 `.cpuprofile` (written by `node --cpu-prof`): self time aggregated by function
 * name + script URL + line, largest first. Self time of a sample = the time delta to the next
 * sample (V8's `timeDeltas`, microseconds), attributed to the sampled node. `(idle)` (the event
 * loop waiting) is left out of the ranking and of the shares, which are shares of busy time.
 *
 * CLI: `node bench/cpu-profile-summary.mjs <file.cpuprofile> [--top 15]` prints a table.
 * Importing this module does nothing.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * One aggregated function.
 * @typedef {object} SelfTimeEntry
 * @property {string} functionName `(anonymous)` when V8 has none; `(garbage collector)`, `(idle)`, `(program)` are V8's own
 * @property {string} location script URL (relative to the repo when inside it) and 1-based line, or '' for V8 internals
 * @property {number} selfMs self time, ms
 * @property {number} share self time / busy (non-idle) sampled time, in [0, 1]
 */

/**
 * Aggregates self time by function + location.
 * @param {{ nodes: Array<{ id: number, callFrame: { functionName: string, url: string, lineNumber: number } }>, samples: number[], timeDeltas: number[] }} profile
 * @param {number} [top] how many entries to answer (default 15)
 * @returns {{ totalMs: number, busyMs: number, entries: SelfTimeEntry[] }}
 */
export function summarizeCpuProfile(profile, top = 15) {
  /** @type {Map<number, string>} */
  const keyOfNode = new Map();
  /** @type {Map<string, { functionName: string, location: string }>} */
  const frames = new Map();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    let location = '';
    if (url) {
      const path = url.startsWith('file://') ? relative(REPO_ROOT, fileURLToPath(url)) : url;
      location = `${path}:${lineNumber + 1}`;
    }
    const name = functionName || '(anonymous)';
    const key = `${name}\u0000${location}`;
    keyOfNode.set(node.id, key);
    if (!frames.has(key)) frames.set(key, { functionName: name, location });
  }
  /** @type {Map<string, number>} */
  const selfUs = new Map();
  let totalUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const key = keyOfNode.get(profile.samples[i] ?? -1);
    if (key === undefined || dt <= 0) continue;
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
    totalUs += dt;
  }
  const idleUs = [...selfUs].filter(([key]) => key.startsWith('(idle)\u0000')).reduce((sum, [, us]) => sum + us, 0);
  const busyUs = totalUs - idleUs;
  const entries = [...selfUs]
    .filter(([key]) => !key.startsWith('(idle)\u0000'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => ({ ...(/** @type {{ functionName: string, location: string }} */ (frames.get(key))), selfMs: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }));
  return { totalMs: totalUs / 1000, busyMs: busyUs / 1000, entries };
}

/**
 * Renders a summary as fixed-width text.
 * @param {{ totalMs: number, busyMs: number, entries: SelfTimeEntry[] }} summary
 * @returns {string}
 */
export function renderSummary(summary) {
  const lines = [
    `sampled ${summary.totalMs.toFixed(0)} ms, busy ${summary.busyMs.toFixed(0)} ms; top ${summary.entries.length} by self time (share of busy time):`,
    '   self ms  share  function  (location)',
  ];
  for (const e of summary.entries) {
    lines.push(`${e.selfMs.toFixed(1).padStart(10)}  ${(e.share * 100).toFixed(1).padStart(4)}%  ${e.functionName}${e.location ? `  (${e.location})` : ''}`);
  }
  return lines.join('\n');
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
  if (positionals.length === 0) {
    process.stderr.write('usage: node bench/cpu-profile-summary.mjs <file.cpuprofile> [--top 15]\n');
    process.exit(2);
  }
  for (const file of positionals) {
    const profile = JSON.parse(await readFile(file, 'utf8'));
    process.stdout.write(`${file}\n${renderSummary(summarizeCpuProfile(profile, Number(values.top)))}\n`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
