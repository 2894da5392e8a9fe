/**
 * Hostile bid request bodies for the chaos run's input burst (DESIGN sections 2 and 8, issue 7
 * part 1): malformed JSON, wrong types, deep nesting, prototype keys, invalid UTF-8, huge
 * numbers, a gzip bomb, bad gzip, oversized bodies, and content types or encodings the endpoint
 * does not take. Each must be answered 2xx or 4xx, never 5xx, never with a dropped connection.
 * The set is fixed (no randomness), so two runs send the same bytes. Importing this module does
 * nothing; the gzip bomb is built on the first call of `hostilePlanner`.
 */
import { gzipSync } from 'node:zlib';
import { goodRequest } from './rows/kit.mjs';

/** The exchange's default tmax, ms (DESIGN section 2), for requests that carry none. */
const DEFAULT_TMAX_MS = 100;
/** Nesting depth of the deep bodies (issue 7: 20,000 levels). */
const DEPTH = 20_000;

/**
 * One hostile body: headers added to (or replacing) the bid headers, and the bytes.
 * @typedef {{ kind: string, headers?: Record<string, string>, body: string | Buffer }} HostileBody
 */

/**
 * The hostile bodies, one per kind.
 * @param {number} tmaxMs tmax of the valid requests the bodies are derived from
 * @returns {HostileBody[]}
 */
function hostileBodies(tmaxMs) {
  const valid = goodRequest('hostile', tmaxMs);
  const json = JSON.stringify(valid);
  const withImp = (/** @type {Record<string, unknown>} */ patch) => JSON.stringify({ ...valid, imp: [{ ...valid.imp[0], ...patch }] });
  const zeros = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return [
    { kind: 'truncated JSON', body: json.slice(0, Math.floor(json.length / 2)) },
    { kind: 'not JSON', body: '<xml>bid</xml>' },
    { kind: 'trailing garbage', body: `${json}}}}` },
    { kind: 'empty body', body: '' },
    { kind: 'null', body: 'null' },
    { kind: 'array body', body: '[1,2,3]' },
    { kind: 'id a number', body: JSON.stringify({ ...valid, id: 7 }) },
    { kind: 'imp a string', body: JSON.stringify({ ...valid, imp: 'x' }) },
    { kind: 'w a string', body: withImp({ banner: { w: '300', h: 250 } }) },
    { kind: 'tmax a string', body: JSON.stringify({ ...valid, tmax: 'fast' }) },
    { kind: 'negative floor', body: withImp({ bidfloor: -1 }) },
    { kind: 'site and app', body: JSON.stringify({ ...valid, app: { id: 'a' } }) },
    { kind: 'huge numbers', body: json.replace('"bidfloor":0.1', '"bidfloor":1e400').replace(`"tmax":${tmaxMs}`, '"tmax":1e308') },
    { kind: 'deep arrays body', body: `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}` },
    { kind: 'deep objects body', body: `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}` },
    { kind: 'deep unclosed', body: '['.repeat(DEPTH) },
    { kind: 'deep in imp.ext', body: json.replace('"banner":', `"ext":{"deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}},"banner":`) },
    { kind: '__proto__ keys', body: json.replace('{"id":', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"id":') },
    { kind: 'invalid UTF-8', body: Buffer.concat([Buffer.from(json.slice(0, 10)), Buffer.from([0xff, 0xc0, 0x80, 0xed, 0xa0, 0x80]), Buffer.from(json.slice(10))]) },
    { kind: '60 KB string', body: JSON.stringify({ ...valid, id: 'x'.repeat(60_000) }) },
    { kind: '1 MiB body', body: JSON.stringify({ ...valid, ext: { pad: 'x'.repeat(1024 * 1024) } }) },
    { kind: 'gzip bomb', headers: { 'content-encoding': 'gzip' }, body: zeros },
    { kind: 'bad gzip', headers: { 'content-encoding': 'gzip' }, body: json },
    { kind: 'encoding br', headers: { 'content-encoding': 'br' }, body: json },
    { kind: 'type xml', headers: { 'content-type': 'application/xml' }, body: json },
    { kind: 'type unparsable', headers: { 'content-type': ';;;===' }, body: json },
  ];
}

/**
 * A planner for `startLoad`: `badPerGood` hostile requests (cycling through the kinds) for each
 * good one, ids `<prefix>-<i>` on the good ones.
 * @param {{ headers: Record<string, string>, tmaxMs: number, prefix: string, badPerGood: number }} o
 * @returns {{ kinds: number, next: (i: number) => import('./load.mjs').PlannedRequest }}
 */
export function hostilePlanner(o) {
  const bodies = hostileBodies(o.tmaxMs);
  let bad = 0;
  return {
    kinds: bodies.length,
    next: (i) => {
      if (i % (o.badPerGood + 1) === 0) return { kind: 'good', headers: o.headers, body: JSON.stringify(goodRequest(`${o.prefix}-${i}`, o.tmaxMs)), tmaxMs: o.tmaxMs };
      const h = /** @type {HostileBody} */ (bodies[bad++ % bodies.length]);
      return { kind: `bad: ${h.kind}`, headers: { ...o.headers, ...h.headers }, body: h.body, tmaxMs: DEFAULT_TMAX_MS };
    },
  };
}
