/**
 * Store outage (DESIGN section 2, issue 7 part 4): while another process holds the SQLite write
 * lock, `/readyz` goes red and bid requests answer 503 fast without calling partners; when the
 * lock is released the exchange recovers by itself, and what was answered before is intact.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const bidRequest = { id: 'o-1', imp: [{ id: '1', banner: { w: 300, h: 250 } }], tmax: 200 };

async function readyStatus(ex: TestExchange): Promise<number> {
  const res = await request(`${ex.url}/readyz`);
  await res.body.dump();
  return res.statusCode;
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('store outage: the database file locked by another process', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  beforeAll(async () => {
    dsp = await startFakeDsp((body: any) => ({ status: 200, body: { id: body.id, seatbid: [{ bid: [{ id: 'b', impid: '1', price: 1, adm: 'x', crid: 'c', w: 300, h: 250 }] }] } }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }] });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  it('goes red, answers 503 fast, and recovers when the lock is released', async () => {
    expect((await ex.bid(bidRequest)).status).toBe(200);
    expect(await readyStatus(ex)).toBe(200);

    const locker = new Database(join(ex.dir, 'adx.db'));
    locker.exec('BEGIN EXCLUSIVE');
    try {
      await until(async () => (await readyStatus(ex)) === 503);
      const callsBefore = dsp.requests.length;
      const started = performance.now();
      const res = await ex.bid(bidRequest);
      expect(res.status).toBe(503);
      expect(res.json().status).toBe(503);
      expect(performance.now() - started).toBeLessThan(bidRequest.tmax); // before its deadline: no partner call, no write attempt
      expect(dsp.requests.length).toBe(callsBefore);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }

    await until(async () => (await readyStatus(ex)) === 200);
    expect((await ex.bid(bidRequest)).status).toBe(200);
    const check = new Database(join(ex.dir, 'adx.db'), { readonly: true });
    try {
      const bids = (check.prepare('select count(*) as n from bids').get() as { n: number }).n;
      expect(bids).toBe(2);
    } finally {
      check.close();
    }
  });
});
