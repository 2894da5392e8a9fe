/**
 * Notice tokens cannot be replayed into a different bid (issue 7 part 5; DESIGN section 3): a
 * token is bound to its exchange bid id by its HMAC, so changing any character, splicing one
 * token's payload with another's tag, truncating or extending it answers 403; a token used on
 * the URL of another notice kind counts for its own bid only (observed through the partner's
 * `nurl`/`burl` calls, which carry `${AUCTION_BID_ID}`).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeBid, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

async function get(url: string): Promise<number> {
  const res = await request(url);
  await res.body.dump();
  return res.statusCode;
}

describe('notice tokens are bound to their bid', () => {
  let dsp: FakeDsp;
  let ex: TestExchange;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    dsp = await startFakeDsp((body) => ({
      status: 200,
      body: {
        id: body?.id,
        seatbid: [
          {
            bid: (body?.imp ?? []).map((imp) =>
              fakeBid(imp, { id: `p-${imp.id}`, nurl: `${dsp.origin}/nurl?b=\${AUCTION_BID_ID}`, burl: `${dsp.origin}/burl?b=\${AUCTION_BID_ID}` }),
            ),
          },
        ],
      },
    }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }] });
    const res = await ex.bid({ id: 'two', imp: [{ id: 'A', banner: { w: 300, h: 250 } }, { id: 'B', banner: { w: 300, h: 250 } }], tmax: 300 });
    expect(res.status).toBe(200);
    const bids = res.json().seatbid.flatMap((s: any) => s.bid);
    const tokenOf = (impid: string) => new URL(bids.find((b: any) => b.impid === impid).nurl.replace('${AUCTION_PRICE}', '')).searchParams.get('t')!;
    tokenA = tokenOf('A');
    tokenB = tokenOf('B');
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  const url = (kind: string, t: string) => `${ex.url}/v1/notice/${kind}?t=${t}&price=0.5`;

  it('changing any single character of a token answers 403', async () => {
    const failures: string[] = [];
    for (let i = 0; i < tokenA.length; i++) {
      const original = tokenA[i]!;
      const replacement = B64URL[(B64URL.indexOf(original) + 1 + (i % 7)) % B64URL.length]!;
      const altered = tokenA.slice(0, i) + replacement + tokenA.slice(i + 1);
      const status = await get(url('win', altered));
      if (status !== 403) failures.push(`position ${i}: ${status}`);
    }
    expect(failures).toEqual([]);
  });

  it("splicing A's payload with B's tag, truncating, extending, or doubling answers 403", async () => {
    const a = Buffer.from(tokenA, 'base64url');
    const b = Buffer.from(tokenB, 'base64url');
    const spliced = Buffer.concat([a.subarray(0, a.length - 16), b.subarray(b.length - 16)]).toString('base64url');
    const swapped = Buffer.concat([b.subarray(0, b.length - 16), a.subarray(a.length - 16)]).toString('base64url');
    for (const t of [spliced, swapped, tokenA.slice(0, -1), tokenA.slice(0, 40), `${tokenA}A`, `${tokenA}${tokenB}`, tokenA.slice(1)]) {
      expect(await get(url('billing', t)), t.slice(0, 20)).toBe(403);
    }
    expect(dsp.hits.filter((h) => h.path === '/burl' || h.path === '/nurl')).toEqual([]);
  });

  it("A's token on the billing and impression URLs counts for A only; B is untouched and still counts on its own", async () => {
    // A's token (taken from A's nurl) fired at the billing URL bills bid A, once.
    expect(await get(url('billing', tokenA))).toBe(200);
    await vi.waitFor(() => expect(dsp.hits.filter((h) => h.path === '/burl').map((h) => h.query.b)).toEqual(['p-A']), { timeout: 3000, interval: 20 });
    // The impression pixel with A's token is the later of billing/pixel: nothing more.
    expect(await get(`${ex.url}/v1/notice/impression?t=${tokenA}`)).toBe(200);
    // A's win notice, then a repeat: A's partner nurl once, never B's.
    expect(await get(url('win', tokenA))).toBe(200);
    expect(await get(url('win', tokenA))).toBe(200);
    await vi.waitFor(() => expect(dsp.hits.filter((h) => h.path === '/nurl').map((h) => h.query.b)).toEqual(['p-A']), { timeout: 3000, interval: 20 });
    // B's own notices still count for B.
    expect(await get(url('billing', tokenB))).toBe(200);
    await vi.waitFor(() => expect(dsp.hits.filter((h) => h.path === '/burl').map((h) => h.query.b).sort()).toEqual(['p-A', 'p-B']), { timeout: 3000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 100)); // no late duplicate partner calls
    expect(dsp.hits.filter((h) => h.path === '/burl')).toHaveLength(2);
    expect(dsp.hits.filter((h) => h.path === '/nurl')).toHaveLength(1);
  });
});
