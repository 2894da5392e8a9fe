/** `adx serve --workers`: a positive integer, or `auto` for the CPUs this process may use (issue 15). */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseWorkers } from '../../src/main.js';

describe('serve --workers', () => {
  it('defaults to one process, takes a count or auto', () => {
    expect(parseWorkers(undefined)).toBe(1);
    expect(parseWorkers('1')).toBe(1);
    expect(parseWorkers('4')).toBe(4);
    expect(parseWorkers('auto')).toBe(availableParallelism());
  });

  it('refuses anything else, naming the flag', () => {
    for (const bad of ['0', '-1', '1.5', 'two', '']) expect(() => parseWorkers(bad)).toThrow(/--workers/);
  });
});
