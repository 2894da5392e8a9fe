/**
 * The shared adapter fixture runner (STYLE 3, after Prebid Server's
 * `adapters/adapterstest/test_json.go`). A fixture file is JSON of the shape
 *
 * ```
 * { "description"?: "...",
 *   "mockBidRequest": {...},                       // the exchange's (validated) bid request
 *   "partner"?: {...DemandPartnerRecord overrides},
 *   "ctx"?: { "publisherId"?, "tmaxMs"?, "exchangeDomain"? },
 *   "httpCalls": [{ "expectedRequest": { "uri", "headers"?, "body" },
 *                   "mockResponse": { "status", "headers"?, "body"? } }],
 *   "expectedBids"?: [{ "bid": {...}, "seat": "...", "currency": "USD" }],
 *   "expectedErrors"?: [{ "kind": "bad_response", "message"?: "substring" }] }
 * ```
 *
 * The runner builds requests with a deterministic context (sequential ids `req_1`, ...; the
 * fixed rates in `FIXTURE_RATES`), compares each outgoing body with `expectedRequest.body`
 * (deep equal, generated `id` included), feeds each `mockResponse` to `parseBids`, and compares
 * the bids and the error kinds (build and parse errors together, in order). It also checks
 * that the adapter did not mutate the bid request. Fixtures in an `exemplary/` folder must
 * expect no errors. Unknown top-level keys fail the fixture (catches typos).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Adapter, AdapterContext, AdapterError, AdapterErrorKind, ParsedBid } from '../../src/demand/contract.js';
import { CurrencyConverter, type RatesTable } from '../../src/domain/currency.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import type { BidRequest } from '../../src/domain/openrtb.js';
import type { DemandPartnerRecord } from '../../src/storage/ports.js';

/** One adapter fixture file, parsed. */
export interface AdapterFixture {
  description?: string;
  mockBidRequest: BidRequest;
  partner?: Partial<DemandPartnerRecord>;
  ctx?: { publisherId?: string; tmaxMs?: number; exchangeDomain?: string };
  httpCalls: Array<{
    expectedRequest: { uri: string; headers?: Record<string, string>; body: unknown };
    mockResponse: { status: number; headers?: Record<string, string>; body?: unknown };
  }>;
  expectedBids?: ParsedBid[];
  expectedErrors?: Array<{ kind: AdapterErrorKind; message?: string }>;
}

const FIXTURE_KEYS = new Set(['description', 'mockBidRequest', 'partner', 'ctx', 'httpCalls', 'expectedBids', 'expectedErrors']);

/** Fixed rates (units per 1 USD) for fixtures, independent of the bundled table's updates. */
export const FIXTURE_RATES: RatesTable = { base: 'USD', date: '2026-01-01', rates: { EUR: 0.9, GBP: 0.8, JPY: 150 } };

/** The partner every fixture starts from (`partner` in the fixture overrides fields). */
export const FIXTURE_PARTNER: DemandPartnerRecord = {
  id: 'dsp_test',
  name: 'Test DSP',
  endpoint: 'http://dsp.test/openrtb2',
  adapter: 'openrtb25',
  timeoutMs: 1000,
  gzip: false,
  qpsLimit: null,
  currency: 'USD',
  enabled: true,
  openrtbVersion: '2.5',
  gvlVendorId: null,
  mediaTypes: ['banner', 'video', 'audio', 'native'],
  createdAtMs: 0,
  updatedAtMs: 0,
};

/** A deterministic adapter context: sequential ids, `FIXTURE_RATES`, publisher `pub_test`, tmax 80 ms, asi `adx.example`. */
export function fixtureContext(fixture: Pick<AdapterFixture, 'partner' | 'ctx'> = {}): AdapterContext {
  return {
    partner: { ...FIXTURE_PARTNER, ...fixture.partner },
    publisherId: fixture.ctx?.publisherId ?? 'pub_test',
    tmaxMs: fixture.ctx?.tmaxMs ?? 80,
    exchangeDomain: fixture.ctx?.exchangeDomain ?? 'adx.example',
    rates: new CurrencyConverter(FIXTURE_RATES),
    ids: createSequentialIds(),
  };
}

/** Reads and shape-checks one fixture file. @throws Error on unknown keys or missing fields. */
export function loadAdapterFixture(file: string): AdapterFixture {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const unknown = Object.keys(parsed).filter((key) => !FIXTURE_KEYS.has(key));
  if (unknown.length > 0) throw new Error(`${basename(file)}: unknown fixture keys ${unknown.join(', ')}`);
  if (typeof parsed.mockBidRequest !== 'object' || !Array.isArray(parsed.httpCalls)) {
    throw new Error(`${basename(file)}: needs mockBidRequest (object) and httpCalls (array)`);
  }
  return parsed as unknown as AdapterFixture;
}

/**
 * Runs one fixture against `adapter` with vitest assertions (fails the calling test on any
 * mismatch). `exemplary` fixtures must expect no errors.
 */
export function runAdapterFixture(adapter: Adapter, fixture: AdapterFixture, options: { exemplary?: boolean } = {}): void {
  if (options.exemplary) expect(fixture.expectedErrors ?? [], 'exemplary fixtures expect no errors').toEqual([]);
  const ctx = fixtureContext(fixture);
  const before = structuredClone(fixture.mockBidRequest);
  const built = adapter.buildRequests(fixture.mockBidRequest, ctx);
  expect(fixture.mockBidRequest, 'buildRequests must not mutate the bid request').toEqual(before);

  const errors: AdapterError[] = [...built.errors];
  const bids: ParsedBid[] = [];
  expect(built.requests.length, 'number of outgoing requests').toBe(fixture.httpCalls.length);
  fixture.httpCalls.forEach((call, i) => {
    const sent = built.requests[i];
    if (!sent) throw new Error(`request ${i} missing`);
    expect(sent.method).toBe('POST');
    expect(sent.uri, `request ${i} uri`).toBe(call.expectedRequest.uri);
    if (call.expectedRequest.headers) expect(sent.headers, `request ${i} headers`).toMatchObject(call.expectedRequest.headers);
    // Through JSON: what goes on the wire (undefined fields vanish) is what must match.
    expect(JSON.parse(JSON.stringify(sent.body)), `request ${i} body`).toEqual(call.expectedRequest.body);

    const { status, headers, body } = call.mockResponse;
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const parsed = adapter.parseBids(sent, { status, headers: headers ?? {}, body: text }, ctx);
    bids.push(...parsed.bids);
    errors.push(...parsed.errors);
  });
  expect(fixture.mockBidRequest, 'the adapter must not mutate the bid request').toEqual(before);

  expect(bids, 'bids').toEqual(fixture.expectedBids ?? []);
  const expectedErrors = fixture.expectedErrors ?? [];
  expect(
    errors.map((e) => e.kind),
    `error kinds (got ${JSON.stringify(errors)})`,
  ).toEqual(expectedErrors.map((e) => e.kind));
  expectedErrors.forEach((expected, i) => {
    if (expected.message !== undefined) expect(errors[i]?.message).toContain(expected.message);
  });
}

/**
 * Registers one vitest `describe` per folder with one `it` per `*.json` fixture in it, run by
 * `runAdapterFixture`. A folder named `exemplary` enforces "no errors". An empty or missing
 * folder fails (a fixture folder that silently tests nothing is a bug).
 */
export function describeAdapterFixtures(adapter: Adapter, dir: string): void {
  const exemplary = basename(dir) === 'exemplary';
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];
  describe(`${adapter.code} fixtures: ${basename(dir)}`, () => {
    it('has fixtures', () => {
      expect(files.length).toBeGreaterThan(0);
    });
    for (const file of files) {
      it(file, () => {
        runAdapterFixture(adapter, loadAdapterFixture(join(dir, file)), { exemplary });
      });
    }
  });
}
