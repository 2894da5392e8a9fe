/**
 * The deadline signal of outbound calls (src/deadline-signal.ts): AbortSignal.timeout's semantics,
 * a parent that aborts first, release by `dispose()`, and (in a child process, so this worker's
 * heap does not interfere) the reason it exists: released signals leave no garbage in the old
 * generation, where AbortSignal.timeout's do.
 */
import { execFile } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlineSignal } from '../src/deadline-signal.js';

const run = promisify(execFile);

describe('deadlineSignal', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts at the deadline with a TimeoutError, as AbortSignal.timeout does', () => {
    const deadline = deadlineSignal(50);
    vi.advanceTimersByTime(49);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.timedOut).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it("follows a parent that aborts first, with the parent's reason, and is not timed out", () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(50, parent.signal);
    const reason = new Error('shutdown');
    parent.abort(reason);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.timedOut).toBe(false);
    vi.advanceTimersByTime(100);
    expect(deadline.timedOut).toBe(false);
  });

  it('is aborted from the start when the parent already is', () => {
    const parent = new AbortController();
    parent.abort('gone');
    const deadline = deadlineSignal(50, parent.signal);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('once disposed never aborts, holds no timer and leaves no listener on the parent', () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(50, parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(1);
    deadline.dispose();
    deadline.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100);
    parent.abort();
    expect(deadline.signal.aborted).toBe(false);
  });

  it('detaches from the parent when the deadline fires', () => {
    const parent = new AbortController();
    deadlineSignal(50, parent.signal);
    vi.advanceTimersByTime(50);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});

describe('deadlineSignal against AbortSignal.timeout + any, bytes promoted to the old generation', () => {
  // 40,000 calls that each end at once (released as a finished call releases its signal), in a
  // child process with --trace-gc-nvp, whose young collections print the bytes they promoted.
  // Measured: ~7 bytes per released deadline signal; ~2,800 per AbortSignal.any([timeout, parent]).
  const script = (mode: 'deadline' | 'timeout'): string => `
    const parent = new AbortController();
    (async () => {
      const { deadlineSignal } = await import(${JSON.stringify(new URL('../dist/deadline-signal.js', import.meta.url).href)});
      for (let i = 0; i < 40000; i++) {
        if (${JSON.stringify(mode)} === 'timeout') AbortSignal.any([AbortSignal.timeout(60000), parent.signal]);
        else deadlineSignal(60000, parent.signal).dispose();
        if (i % 100 === 0) await new Promise((r) => setImmediate(r));
      }
      process.exit(0);
    })();`;
  const promotedPerCall = async (mode: 'deadline' | 'timeout'): Promise<number> => {
    const { stdout } = await run(process.execPath, ['--trace-gc-nvp', '-e', script(mode)], { maxBuffer: 64 * 1024 * 1024 });
    const promoted = [...stdout.matchAll(/ promoted=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    return promoted / 40_000;
  };

  it('a released deadline signal is young garbage; AbortSignal.timeout + any is promoted', async () => {
    const deadlineBytes = await promotedPerCall('deadline');
    const timeoutBytes = await promotedPerCall('timeout');
    expect(deadlineBytes).toBeLessThan(100);
    expect(timeoutBytes).toBeGreaterThan(10 * Math.max(deadlineBytes, 10));
  }, 30_000);
});
