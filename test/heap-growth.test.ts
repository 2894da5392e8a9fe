/**
 * V8's heap growing factor (issue 15, peak RSS): when adx sets it, when the operator's node flags
 * win, and that setting it at run time really bounds the heap in this node (a child process).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { applyHeapGrowth, heapGrowthFlag } from '../src/heap-growth.js';

const run = promisify(execFile);
const none = { execArgv: [], nodeOptions: undefined };

describe('heapGrowthFlag', () => {
  it('answers the V8 flag for a positive percent and nothing for 0', () => {
    expect(heapGrowthFlag(150, none)).toBe('--heap-growing-percent=150');
    expect(heapGrowthFlag(0, none)).toBeUndefined();
  });

  it("leaves heap growth to the operator's node flags, from the command line or NODE_OPTIONS", () => {
    expect(heapGrowthFlag(150, { execArgv: ['--max-old-space-size=512'], nodeOptions: undefined })).toBeUndefined();
    expect(heapGrowthFlag(150, { execArgv: ['--enable-source-maps', '--heap-growing-percent=40'], nodeOptions: undefined })).toBeUndefined();
    expect(heapGrowthFlag(150, { execArgv: [], nodeOptions: '--enable-source-maps --max_old_space_size=160' })).toBeUndefined();
    expect(heapGrowthFlag(150, { execArgv: [], nodeOptions: '--heap-growing-percent 40' })).toBeUndefined();
  });

  it('is not fooled by other heap flags', () => {
    expect(heapGrowthFlag(150, { execArgv: ['--max-semi-space-size=8'], nodeOptions: '--max-old-space-size-foo' })).toBe('--heap-growing-percent=150');
  });
});

describe('applyHeapGrowth', () => {
  it('sets the flag once and answers it, or sets nothing', () => {
    const set: string[] = [];
    expect(applyHeapGrowth(100, none, (f) => set.push(f))).toBe('--heap-growing-percent=100');
    expect(applyHeapGrowth(100, { execArgv: ['--max-old-space-size=512'], nodeOptions: undefined }, (f) => set.push(f))).toBeUndefined();
    expect(set).toEqual(['--heap-growing-percent=100']);
  });

  it('bounds the heap of a process allocating fast when set at run time', async () => {
    // ~40 MiB live, then garbage as fast as the child can make it: V8's own factor lets the heap
    // grow to several times the live size; a factor of 1.2 keeps it well below.
    const script = `
      const { applyHeapGrowth } = await import(${JSON.stringify(new URL('../dist/heap-growth.js', import.meta.url).href)});
      applyHeapGrowth(Number(process.argv[1]), { execArgv: [], nodeOptions: undefined });
      const live = [];
      for (let i = 0; i < 300000; i++) live.push({ i, s: 'live-' + i, a: [i] });
      let garbage = [];
      let peak = 0;
      for (let round = 0; round < 400; round++) {
        for (let i = 0; i < 10000; i++) garbage.push({ i, a: new Array(8).fill(i) });
        if (garbage.length > 100000) garbage = [];
        peak = Math.max(peak, process.memoryUsage().heapTotal);
      }
      // live is read after the loop, so it stays live through it.
      process.stdout.write(String(live.length === 300000 ? peak : -1));
    `;
    const peakOf = async (percent: number) => Number((await run(process.execPath, ['--input-type=module', '-e', script, String(percent)], { env: { ...process.env, NODE_OPTIONS: '' } })).stdout);
    const v8Own = await peakOf(0);
    const bounded = await peakOf(20);
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(v8Own * 0.8);
  }, 60_000);
});
