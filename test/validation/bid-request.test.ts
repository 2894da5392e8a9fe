import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateBidRequest, type ValidationResult } from '../../src/validation/bid-request.js';
import { describeCorpus, listJsonFiles } from '../helpers/conformance.js';

const fixturesDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'bid-requests');

interface ValidFixture {
  description: string;
  request: unknown;
}

interface InvalidFixture extends ValidFixture {
  expectedField: string;
}

function readFixtures<T>(kind: 'valid' | 'invalid'): Array<{ name: string; fixture: T }> {
  return listJsonFiles(join(fixturesDir, kind)).map((file) => ({
    name: basename(file, '.json'),
    fixture: JSON.parse(readFileSync(file, 'utf8')) as T,
  }));
}

/** Freezes a parsed JSON value all the way down, so any write by the validator throws (ESM is strict mode). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

function fields(result: ValidationResult): string[] {
  return result.ok ? [] : result.errors.map((e) => e.field);
}

const validFixtures = readFixtures<ValidFixture>('valid');
const invalidFixtures = readFixtures<InvalidFixture>('invalid');

describe('validateBidRequest: our fixtures', () => {
  it('has fixtures to run', () => {
    expect(validFixtures.length).toBeGreaterThan(10);
    expect(invalidFixtures.length).toBeGreaterThan(50);
  });

  describe.each(validFixtures)('valid/$name', ({ fixture }) => {
    it(fixture.description, () => {
      const before = structuredClone(fixture.request);
      const input = deepFreeze(fixture.request);
      const result = validateBidRequest(input);
      expect(result.ok ? [] : result.errors).toEqual([]);
      // The same object comes back, not a copy, and it is unchanged.
      expect(result.ok && result.request).toBe(input);
      expect(input).toEqual(before);
    });
  });

  describe.each(invalidFixtures)('invalid/$name', ({ name, fixture }) => {
    it(`${fixture.description} -> ${fixture.expectedField}`, () => {
      expect(typeof fixture.expectedField).toBe('string');
      const result = validateBidRequest(deepFreeze(fixture.request));
      expect(result.ok).toBe(false);
      expect(fields(result)).toContain(fixture.expectedField);
      // Each fixture isolates one rule (a valid request with one defect), except the many-* ones.
      if (!name.startsWith('many-')) expect(fields(result)).toEqual([fixture.expectedField]);
      if (!result.ok) {
        for (const error of result.errors) {
          expect(error.field.length).toBeGreaterThan(0);
          expect(error.message.length).toBeGreaterThan(0);
        }
      }
    });
  });
});

describe('validateBidRequest: behaviour', () => {
  const banner = { id: '1', banner: { w: 300, h: 250 } };

  it('rejects a missing body as a whole', () => {
    expect(fields(validateBidRequest(undefined))).toEqual(['body']);
  });

  it('collects every error instead of stopping at the first, in order of concern', () => {
    const result = validateBidRequest({
      id: '',
      imp: [{ id: 'a', banner: { w: -1, h: 250 } }, { id: 'a', video: { mimes: [] } }, 'x'],
      tmax: 0,
      site: {},
      app: {},
      regs: { ext: { gdpr: 3 } },
      ext: [],
    });
    expect(fields(result)).toEqual([
      'id',
      'imp[0].banner.w',
      'imp[1].id',
      'imp[1].video.mimes',
      'imp[2]',
      'tmax',
      'app',
      'regs.ext.gdpr',
      'ext',
    ]);
  });

  it('names the later imp of a duplicate pair and points at the first', () => {
    const result = validateBidRequest({ id: 'r', imp: [banner, { ...banner, id: '2' }, banner] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]?.field).toBe('imp[2].id');
      expect(result.errors[0]?.message).toContain('imp[0].id');
    }
  });

  it('reports the precise cause of a bad size once, not also a generic "no size" error', () => {
    expect(fields(validateBidRequest({ id: 'r', imp: [{ id: '1', banner: { w: 50, h: -1 } }] }))).toEqual(['imp[0].banner.h']);
    expect(fields(validateBidRequest({ id: 'r', imp: [{ id: '1', banner: { format: [{ w: -1, h: 250 }] } }] }))).toEqual([
      'imp[0].banner.format[0].w',
    ]);
  });

  it('treats only instl=1 as an interstitial', () => {
    const request = (instl: unknown) => ({ id: 'r', imp: [{ id: '1', instl, banner: {} }] });
    expect(validateBidRequest(request(1)).ok).toBe(true);
    expect(fields(validateBidRequest(request(0)))).toEqual(['imp[0].banner']);
    expect(fields(validateBidRequest(request('1')))).toEqual(['imp[0].banner']);
  });

  it('accepts a banner sized by format even when its own w/h are zero or partial', () => {
    const format = [{ w: 320, h: 50 }];
    expect(validateBidRequest({ id: 'r', imp: [{ id: '1', banner: { w: 0, h: 0, format } }] }).ok).toBe(true);
    expect(validateBidRequest({ id: 'r', imp: [{ id: '1', banner: { w: 320, format } }] }).ok).toBe(true);
  });

  it('does not check 2.6 locations or fields it does not read', () => {
    const result = validateBidRequest({
      id: 'r',
      imp: [{ ...banner, metric: 'not checked', rwdd: 'x', audio: { mimes: [] } }],
      source: { schain: { complete: 'x', nodes: 'y' } },
      regs: { gdpr: 'x', gpp_sid: 'y' },
      user: { consent: 7, eids: {}, ext: { eids: 'x' } },
      device: { geo: 'x' },
      site: { publisher: 'x', content: 3 },
      bcat: 'x',
      wseat: 1,
    });
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('leaves prototype keys inert and never pollutes Object.prototype', () => {
    const text = JSON.stringify({ id: 'r', imp: [banner] }).replace(
      '{"id":"r",',
      '{"__proto__":{"polluted":true,"ext":[]},"constructor":{"prototype":{"polluted":true}},"id":"r",',
    );
    const input: unknown = JSON.parse(text);
    const result = validateBidRequest(input);
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    // A `__proto__` key does not stand in for the fields it would shadow.
    const noImp: unknown = JSON.parse('{"id":"r","__proto__":{"imp":[{"id":"1","banner":{"w":1,"h":1}}]}}');
    expect(fields(validateBidRequest(noImp))).toEqual(['imp']);
  });

  it('reads 1e999 (JSON.parse gives Infinity) as no valid number anywhere', () => {
    const input: unknown = JSON.parse('{"id":"r","tmax":1e999,"imp":[{"id":"1","banner":{"w":1e999,"h":250}}]}');
    expect(fields(validateBidRequest(input))).toEqual(['imp[0].banner.w', 'tmax']);
  });

  it('never throws and always explains a rejection, whatever JSON it gets', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = validateBidRequest(deepFreeze(value));
        return result.ok || result.errors.length > 0;
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on a valid request with any one field replaced by arbitrary JSON', () => {
    const base = validFixtures.find((f) => f.name === 'ext-objects')?.fixture.request as Record<string, unknown>;
    expect(base).toBeDefined();
    const keys = Object.keys(base);
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue(), (key, value) => {
        const result = validateBidRequest(deepFreeze({ ...structuredClone(base), [key]: value }));
        return result.ok || result.errors.length > 0;
      }),
      { numRuns: 500 },
    );
  });
});

describeCorpus('validateBidRequest: conformance corpus (openrtb25)', ['openrtb25'], (corpus) => {
  const validFiles = listJsonFiles(join(corpus, 'valid'));
  const invalidFiles = listJsonFiles(join(corpus, 'invalid'));

  it('finds files in both folders', () => {
    expect(validFiles.length).toBeGreaterThan(0);
    expect(invalidFiles.length).toBeGreaterThan(0);
  });

  it.each(validFiles.map((file) => [basename(file), file]))('valid/%s is accepted', (_name, file) => {
    const result = validateBidRequest(JSON.parse(readFileSync(file, 'utf8')));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it.each(invalidFiles.map((file) => [basename(file), file]))('invalid/%s is rejected', (_name, file) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // Not JSON at all: the HTTP edge answers 400 before validation; that is the expected outcome.
      return;
    }
    const result = validateBidRequest(parsed);
    expect(result.ok).toBe(false);
  });
});
