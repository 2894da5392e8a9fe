/**
 * DESIGN section 2 "Conformance": every request in `<conformance>/openrtb25/valid/` answers 200
 * or 204 (plain and gzip-compressed) and every one in `invalid/` answers 400, through the real
 * HTTP server with a real partner. The corpus is read in place (DESIGN section 10) and skipped
 * visibly where absent; our own fixtures (test/fixtures/bid-requests) run through HTTP the same way.
 */
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { describeCorpus, listJsonFiles } from '../helpers/conformance.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const ownFixtures = resolve(import.meta.dirname, '..', 'fixtures', 'bid-requests');

function bidsFor(body: any) {
  const imps = Array.isArray(body?.imp) ? body.imp : [];
  return {
    id: 'r',
    seatbid: [
      {
        bid: imps.map((imp: any, i: number) => {
          const f = imp.banner?.format?.[0];
          return { id: `b${i}`, impid: imp.id, price: 50, adm: '<b>ad</b>', crid: 'c', w: imp.banner?.w ?? f?.w, h: imp.banner?.h ?? f?.h };
        }),
      },
    ],
  };
}

describe('bid endpoint over request corpora', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  beforeAll(async () => {
    dsp = await startFakeDsp((body: any) => ({ status: 200, body: bidsFor(body) }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }] });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  describeCorpus('shared conformance corpus (openrtb25)', ['openrtb25'], (corpus) => {
    const valid = listJsonFiles(join(corpus, 'valid'));
    const invalid = listJsonFiles(join(corpus, 'invalid'));
    it('has files', () => {
      expect(valid.length).toBeGreaterThan(0);
      expect(invalid.length).toBeGreaterThan(0);
    });
    for (const file of valid) {
      it(`valid/${basename(file)} answers 200 or 204, plain and gzip`, async () => {
        const raw = readFileSync(file);
        const plain = await ex.bid(raw);
        expect([200, 204], plain.body.toString()).toContain(plain.status);
        const gz = await ex.bid(gzipSync(raw), { headers: { 'content-encoding': 'gzip' } });
        expect([200, 204]).toContain(gz.status);
        if (plain.status === 200) {
          const response = plain.json();
          expect(response.id).toBe(JSON.parse(raw.toString()).id);
          for (const seat of response.seatbid) for (const bid of seat.bid) expect(typeof bid.price).toBe('number');
        }
      });
    }
    for (const file of invalid) {
      it(`invalid/${basename(file)} answers 400 with nbr 2`, async () => {
        const res = await ex.bid(readFileSync(file));
        expect(res.status, res.body.toString()).toBe(400);
        expect(res.json().nbr).toBe(2);
        expect(res.json().errors.length).toBeGreaterThan(0);
      });
    }
  });

  describe('our own fixtures', () => {
    for (const file of listJsonFiles(join(ownFixtures, 'valid'))) {
      it(`valid/${basename(file)} answers 200 or 204`, async () => {
        const fixture = JSON.parse(readFileSync(file, 'utf8'));
        const res = await ex.bid(fixture.request);
        expect([200, 204], res.body.toString()).toContain(res.status);
      });
    }
    for (const file of listJsonFiles(join(ownFixtures, 'invalid'))) {
      it(`invalid/${basename(file)} answers 400 naming ${basename(file)}'s field`, async () => {
        const fixture = JSON.parse(readFileSync(file, 'utf8'));
        const res = await ex.bid(JSON.stringify(fixture.request));
        expect(res.status).toBe(400);
        expect(res.json().errors.map((e: any) => e.field)).toContain(fixture.expectedField);
      });
    }
  });
});
