/**
 * How far V8 lets the old generation grow past the live heap before its next full collection
 * (issue 15: peak RSS under 300 MiB per process).
 *
 * V8 sizes the next old-generation limit as live heap x a growing factor (V8
 * `src/heap/heap-controller.cc`, `MemoryController::GrowingFactor`). With a heap limit of 2 GiB or
 * more (node's default on a host with 8 GiB or more) and a fast allocation rate, that factor is 4.
 * V8's flag `--heap-growing-percent=N` replaces the factor by 1 + N/100. The flag is read each
 * time V8 computes a limit, so it takes effect when set at start with `v8.setFlagsFromString`,
 * before the bid path allocates; no node command-line flag or re-exec is needed.
 *
 * It is off by default (`server.heapGrowingPercent` 0, V8's own factor). It was added when the
 * old generation filled with garbage promoted by every outbound call (abort signals, undici's
 * long timers: src/deadline-signal.ts) and peak RSS reached 300-320 MiB; with that garbage gone
 * the bench peaks at 170-250 MiB with V8's own factor (docs/performance.md, fifth pass). A lower
 * factor still trims RSS where memory is budgeted, at the price of more full collections, whose
 * helper threads share a pinned core with the event loop.
 *
 * The operator's own heap settings win: when `--heap-growing-percent` or `--max-old-space-size`
 * (which also lowers V8's factor, below a 2 GiB limit) is among node's flags (command line or
 * `NODE_OPTIONS`), nothing is set here.
 */
import { setFlagsFromString } from 'node:v8';

/** Node/V8 flags by which an operator already decides heap growth. */
const OPERATOR_HEAP_FLAGS = /(^|\s)--(heap-growing-percent|heap_growing_percent|max-old-space-size|max_old_space_size)(=|\s|$)/;

/** Where node's flags came from, as the process entry reads them. */
export interface NodeFlagSources {
  /** `process.execArgv`: flags given on node's command line. */
  execArgv: readonly string[];
  /** `process.env.NODE_OPTIONS`, or undefined when unset. */
  nodeOptions: string | undefined;
}

/**
 * The V8 flag to set for `percent` (config `server.heapGrowingPercent`, an integer >= 0), or
 * undefined when there is nothing to set: `percent` is 0 (V8 decides) or the operator's node flags
 * already decide heap growth (module comment). Pure.
 * @returns e.g. `--heap-growing-percent=150`
 */
export function heapGrowthFlag(percent: number, sources: NodeFlagSources): string | undefined {
  if (!(percent > 0)) return undefined;
  if (OPERATOR_HEAP_FLAGS.test(sources.execArgv.join(' ')) || OPERATOR_HEAP_FLAGS.test(sources.nodeOptions ?? '')) return undefined;
  return `--heap-growing-percent=${Math.round(percent)}`;
}

/**
 * Sets V8's heap growing factor for this process (see `heapGrowthFlag`) and answers the flag it
 * set, or undefined when it set none. Call once at start, before the runtime is built.
 * `setFlags` is `v8.setFlagsFromString` unless a test injects its own.
 */
export function applyHeapGrowth(percent: number, sources: NodeFlagSources, setFlags: (flags: string) => void = setFlagsFromString): string | undefined {
  const flag = heapGrowthFlag(percent, sources);
  if (flag !== undefined) setFlags(flag);
  return flag;
}
