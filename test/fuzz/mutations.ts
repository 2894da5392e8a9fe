/**
 * The seeded mutation corpus of the bid endpoint fuzz tests: seed requests (our fixtures, plus
 * the third-party conformance corpus where present) turned into hostile bodies by bit flips,
 * truncation, wrong types in every field, deep nesting, prototype keys, huge numbers, invalid
 * UTF-8 and long strings. Everything is deterministic for a given seed (mulberry32), so a
 * failure names a reproducible input.
 */
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { conformanceDir, listJsonFiles } from '../helpers/conformance.js';

/** A seed request: where it came from and its JSON text. */
export interface SeedRequest {
  name: string;
  text: string;
}

/** A hostile body derived from a seed: a label to reproduce it and the bytes. */
export interface Mutant {
  label: string;
  body: Buffer;
}

/** A deterministic PRNG (mulberry32): integers in [0, 2^32) mapped to [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fixturesDir = resolve(import.meta.dirname, '..', 'fixtures', 'bid-requests');

/**
 * Seed requests: our own fixtures (`test/fixtures/bid-requests/{valid,invalid}`, the `request`
 * member) and, when the conformance folder exists, `openrtb25/{valid,invalid}` as they are.
 */
export function loadSeeds(): { own: SeedRequest[]; conformance: SeedRequest[] } {
  const own: SeedRequest[] = [];
  for (const kind of ['valid', 'invalid']) {
    for (const file of listJsonFiles(join(fixturesDir, kind))) {
      const fixture = JSON.parse(readFileSync(file, 'utf8')) as { request: unknown };
      own.push({ name: `own/${kind}/${basename(file)}`, text: JSON.stringify(fixture.request) });
    }
  }
  const conformance: SeedRequest[] = [];
  const dir = conformanceDir();
  if (dir) {
    for (const kind of ['valid', 'invalid']) {
      for (const file of listJsonFiles(join(dir, 'openrtb25', kind))) {
        conformance.push({ name: `conformance/${kind}/${basename(file)}`, text: readFileSync(file, 'utf8') });
      }
    }
  }
  return { own, conformance };
}

/** `count` copies of `text` with 1..8 random bits flipped each. */
export function bitFlips(seed: SeedRequest, random: () => number, count: number): Mutant[] {
  const out: Mutant[] = [];
  const original = Buffer.from(seed.text, 'utf8');
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.from(original);
    const flips = 1 + Math.floor(random() * 8);
    const at: number[] = [];
    for (let f = 0; f < flips; f++) {
      const pos = Math.floor(random() * bytes.length);
      const bit = Math.floor(random() * 8);
      bytes[pos]! ^= 1 << bit;
      at.push(pos * 8 + bit);
    }
    out.push({ label: `${seed.name} bitflip@${at.join(',')}`, body: bytes });
  }
  return out;
}

/** `count` random prefixes of `text` (cut at a byte, so UTF-8 may be cut mid-character). */
export function truncations(seed: SeedRequest, random: () => number, count: number): Mutant[] {
  const bytes = Buffer.from(seed.text, 'utf8');
  const out: Mutant[] = [];
  for (let i = 0; i < count; i++) {
    const cut = Math.floor(random() * bytes.length);
    out.push({ label: `${seed.name} truncated@${cut}`, body: bytes.subarray(0, cut) });
  }
  return out;
}

/** The replacement values of `wrongTypes`: one of each JSON type. */
export const WRONG_TYPE_VALUES: readonly unknown[] = [null, 7, 'x', [], {}, true];

type JsonPath = Array<string | number>;

/** Every path of `value` (objects and arrays included, the root excluded), depth first. */
export function jsonPaths(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const paths: JsonPath[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      paths.push([...prefix, i]);
      paths.push(...jsonPaths(item, [...prefix, i]));
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      paths.push([...prefix, key]);
      paths.push(...jsonPaths((value as Record<string, unknown>)[key], [...prefix, key]));
    }
  }
  return paths;
}

/** A deep copy of `root` with the value at `path` replaced by `replacement`. */
export function replaceAt(root: unknown, path: JsonPath, replacement: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(root)) as unknown;
  let node = copy as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = replacement;
  return copy;
}

/** Value at `path` in `root`. */
function valueAt(root: unknown, path: JsonPath): unknown {
  let node = root as Record<string | number, unknown>;
  for (const key of path) node = node[key] as Record<string | number, unknown>;
  return node;
}

/**
 * For every field of the seed (leaf or object), one mutant per value of `WRONG_TYPE_VALUES`.
 * A seed that is not JSON (the corpus has deliberately malformed files) gives none. With `seen`
 * shared across seeds, a field already mutated with the same path and the same original value
 * (fixtures share their site/device blocks) is not mutated again.
 */
export function wrongTypes(seed: SeedRequest, seen?: Set<string>): Mutant[] {
  let root: unknown;
  try {
    root = JSON.parse(seed.text);
  } catch {
    return [];
  }
  const out: Mutant[] = [];
  for (const path of jsonPaths(root)) {
    if (seen) {
      const key = `${path.join('.')}\u0000${JSON.stringify(valueAt(root, path))}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    for (const value of WRONG_TYPE_VALUES) {
      out.push({ label: `${seed.name} ${path.join('.')}=${JSON.stringify(value)}`, body: Buffer.from(JSON.stringify(replaceAt(root, path, value)), 'utf8') });
    }
  }
  return out;
}

/** A minimal valid banner request (one 300x250 imp) with `patch` merged at the top level. */
export function baseRequest(patch: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'fuzz-req',
    imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.1 }],
    site: { domain: 'pub.example', page: 'https://pub.example/', publisher: { id: 'p1' } },
    device: { ua: 'fuzz', ip: '203.0.113.9' },
    tmax: 200,
    ...patch,
  };
}

const DEPTH = 20_000;

/**
 * Deeply nested bodies (raw strings, never built as objects): 20,000 levels of arrays and of
 * objects as the whole body (`where: 'body'`), and inside `imp[0].ext`, `site.ext`,
 * `user.data` and `ext` of an otherwise valid request (`where: 'field'`), places whose JSON the
 * exchange copies to partners.
 */
export function deepNesting(where: 'body' | 'field'): Mutant[] {
  const arrays = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
  const objects = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
  const compactObjects = `${'{"":'.repeat(DEPTH)}0${'}'.repeat(DEPTH)}`;
  const mixed = `${'[{"":'.repeat(DEPTH / 2)}0${'}]'.repeat(DEPTH / 2)}`;
  const inside = (where: string, nested: string): string => {
    switch (where) {
      case 'imp.ext':
        return `{"id":"deep","imp":[{"id":"1","banner":{"w":300,"h":250},"ext":{"x":${nested}}}],"tmax":200}`;
      case 'site.ext':
        return `{"id":"deep","imp":[{"id":"1","banner":{"w":300,"h":250}}],"site":{"ext":{"x":${nested}}},"tmax":200}`;
      case 'user.data':
        return `{"id":"deep","imp":[{"id":"1","banner":{"w":300,"h":250}}],"user":{"data":${nested}},"tmax":200}`;
      default:
        return `{"id":"deep","imp":[{"id":"1","banner":{"w":300,"h":250}}],"ext":{"x":${nested}},"tmax":200}`;
    }
  };
  if (where === 'body') {
    return [
      { label: 'deep arrays (whole body)', body: Buffer.from(arrays) },
      { label: 'deep objects (whole body)', body: Buffer.from(objects) },
      { label: 'deep compact objects (whole body)', body: Buffer.from(compactObjects) },
      { label: 'deep mixed (whole body)', body: Buffer.from(mixed) },
      { label: 'unclosed deep arrays', body: Buffer.from('['.repeat(DEPTH)) },
      { label: 'deep arrays as imp', body: Buffer.from(`{"id":"r","imp":${arrays}}`) },
      { label: 'deep mixed as banner.format', body: Buffer.from(`{"id":"r","imp":[{"id":"1","banner":{"format":${mixed}}}]}`) },
    ];
  }
  const out: Mutant[] = [];
  for (const place of ['imp.ext', 'site.ext', 'user.data', 'ext']) {
    out.push({ label: `deep arrays in ${place}`, body: Buffer.from(inside(place, arrays)) });
    out.push({ label: `deep mixed in ${place}`, body: Buffer.from(inside(place, mixed)) });
  }
  return out;
}

/**
 * Prototype keys as raw JSON text (so `__proto__` is an own key, as JSON.parse makes it):
 * `__proto__`, `constructor` and `prototype` carrying `{"polluted": ...}` at the top level, in
 * `imp[0]`, in `imp[0].ext`, in `ext`, in `site`, `banner`, `regs.ext` and `source.ext.schain`.
 */
export function prototypeKeys(): Mutant[] {
  const payloads = ['"__proto__":{"polluted":"yes","id":"p"}', '"constructor":{"prototype":{"polluted":"yes"}}', '"prototype":{"polluted":"yes"}', '"__proto__":null', '"__proto__":[1]'];
  const out: Mutant[] = [];
  for (const p of payloads) {
    const bodies: Record<string, string> = {
      top: `{${p},"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}]}`,
      'top-after': `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],${p}}`,
      imp: `{"id":"r","imp":[{${p},"id":"1","banner":{"w":300,"h":250}}]}`,
      'imp.ext': `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"ext":{${p}}}]}`,
      'imp.ext.prebid': `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"ext":{"prebid":{"bidder":{${p}}}}}]}`,
      banner: `{"id":"r","imp":[{"id":"1","banner":{${p},"w":300,"h":250}}]}`,
      ext: `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"ext":{${p}}}`,
      site: `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"site":{${p},"publisher":{${p}}}}`,
      'regs.ext': `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"regs":{"ext":{${p}}}}`,
      schain: `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"source":{"ext":{"schain":{${p},"complete":1,"ver":"1.0","nodes":[{${p}}]}}}}`,
      pmp: `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"pmp":{${p},"deals":[{${p},"id":"d1"}]}}]}`,
    };
    for (const [where, body] of Object.entries(bodies)) out.push({ label: `prototype key ${p.slice(0, 15)} in ${where}`, body: Buffer.from(body) });
  }
  return out;
}

/** Huge and edge numbers as raw text in every numeric field of a valid request. */
export function hugeNumbers(): Mutant[] {
  const numbers = ['1e308', '-1e308', '1e400', '-1e400', '9007199254740993', '-9007199254740993', '1e-400', '0.0000001', '-0', '123456789012345678901234567890', '1E+2', '5e-324'];
  const templates: Record<string, (n: string) => string> = {
    bidfloor: (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"bidfloor":${n}}]}`,
    'deal.bidfloor': (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"pmp":{"deals":[{"id":"d","bidfloor":${n}}]}}]}`,
    tmax: (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"tmax":${n}}`,
    'banner.w': (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":${n},"h":250}}]}`,
    'format.h': (n) => `{"id":"r","imp":[{"id":"1","banner":{"format":[{"w":300,"h":${n}}]}}]}`,
    'format.wratio': (n) => `{"id":"r","imp":[{"id":"1","banner":{"format":[{"wratio":${n},"hratio":1,"wmin":${n}}]}}]}`,
    at: (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"at":${n}}`,
    instl: (n) => `{"id":"r","imp":[{"id":"1","instl":${n},"banner":{"w":0,"h":0}}]}`,
    gdpr: (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"regs":{"ext":{"gdpr":${n}}}}`,
    'schain.complete': (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"source":{"ext":{"schain":{"complete":${n},"ver":"1.0","nodes":[]}}}}`,
    'device.geo.lat': (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"device":{"geo":{"lat":${n}}}}`,
    'private_auction': (n) => `{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250},"pmp":{"private_auction":${n},"deals":[{"id":"d"}]}}]}`,
  };
  const out: Mutant[] = [];
  for (const [field, template] of Object.entries(templates)) {
    for (const n of numbers) out.push({ label: `${field}=${n}`, body: Buffer.from(template(n)) });
  }
  return out;
}

/** Invalid UTF-8 byte sequences spliced into string values and between tokens of a valid request. */
export function invalidUtf8(): Mutant[] {
  const sequences: Record<string, number[]> = {
    'lone 0xff': [0xff],
    'lone continuation': [0x80],
    'overlong slash': [0xc0, 0xaf],
    'truncated 2-byte': [0xc3],
    'truncated 3-byte': [0xe2, 0x82],
    'utf-16 surrogate': [0xed, 0xa0, 0x80],
    'beyond U+10FFFF': [0xf4, 0x90, 0x80, 0x80],
    'bom': [0xef, 0xbb, 0xbf],
    nul: [0x00],
  };
  const out: Mutant[] = [];
  for (const [name, bytes] of Object.entries(sequences)) {
    const bad = Buffer.from(bytes);
    const parts = (a: string, b: string) => Buffer.concat([Buffer.from(a), bad, Buffer.from(b)]);
    out.push({ label: `${name} in id`, body: parts('{"id":"r', '","imp":[{"id":"1","banner":{"w":300,"h":250}}]}') });
    out.push({ label: `${name} in imp.id`, body: parts('{"id":"r","imp":[{"id":"', '","banner":{"w":300,"h":250}}]}') });
    out.push({ label: `${name} in a key`, body: parts('{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"', '":1}') });
    out.push({ label: `${name} between tokens`, body: parts('{"id":"r",', '"imp":[{"id":"1","banner":{"w":300,"h":250}}]}') });
    out.push({ label: `${name} before the body`, body: parts('', JSON.stringify(baseRequest())) });
    out.push({ label: `${name} in site.page`, body: parts('{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}],"site":{"page":"https://a.example/', '"}}') });
  }
  return out;
}

/** 60 KB strings (under the 64 KiB body limit) in every string field of a valid request. */
export function longStrings(): Mutant[] {
  const long = 'é'.repeat(15_000) + 'x'.repeat(30_000); // 60,000 bytes of UTF-8
  const escaped = '\\u0041'.repeat(10_000); // 60,000 bytes that decode to 10,000 characters
  const out: Mutant[] = [];
  const places: Record<string, (s: string) => Record<string, unknown>> = {
    id: (s) => baseRequest({ id: s }),
    'imp.id': (s) => baseRequest({ imp: [{ id: s, banner: { w: 300, h: 250 } }] }),
    bidfloorcur: (s) => baseRequest({ imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 1, bidfloorcur: s }] }),
    'site.page': (s) => baseRequest({ site: { page: s, publisher: { id: 'p1' } } }),
    'device.ua': (s) => baseRequest({ device: { ua: s } }),
    'user.ext.consent': (s) => baseRequest({ user: { ext: { consent: s } } }),
    'regs.ext.us_privacy': (s) => baseRequest({ regs: { ext: { us_privacy: s } } }),
    'badv[0]': (s) => baseRequest({ badv: [s] }),
    'cur[0]': (s) => baseRequest({ cur: [s] }),
    'deal.id': (s) => baseRequest({ imp: [{ id: '1', banner: { w: 300, h: 250 }, pmp: { deals: [{ id: s }] } }] }),
    'a key': (s) => baseRequest({ [s]: 1 }),
  };
  for (const [where, make] of Object.entries(places)) {
    out.push({ label: `60 KB string in ${where}`, body: Buffer.from(JSON.stringify(make(long))) });
  }
  out.push({ label: '60 KB of \\u escapes in id', body: Buffer.from(JSON.stringify(baseRequest({ id: 'PLACEHOLDER' })).replace('PLACEHOLDER', escaped)) });
  return out;
}

/** Whole-body oddities: empty, JSON scalars, arrays, whitespace, a BOM-prefixed request. */
export function oddBodies(): Mutant[] {
  const bodies = ['', 'null', '[]', '"x"', '0', 'true', '{}', ' ', '\n\n', '[{}]', '{"id":"r","imp":[{}]}', '{"id":"r","imp":[null]}', '{"id":"r","imp":{}}', '{"id":"r"', '}{', 'NaN', 'Infinity', "{'id':'r'}", '{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}]}garbage', '{"id":"r","id":"s","imp":[{"id":"1","banner":{"w":300,"h":250}}]}'];
  const out: Mutant[] = bodies.map((b) => ({ label: `body ${JSON.stringify(b)}`, body: Buffer.from(b) }));
  out.push({ label: 'BOM + valid request', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(baseRequest()))]) });
  out.push({ label: 'UTF-16LE valid request', body: Buffer.from(JSON.stringify(baseRequest()), 'utf16le') });
  return out;
}
