import { describe, it, expect } from 'vitest';
import type { Bid, Imp } from '../../src/domain/openrtb.js';
import { impSizesOf, matchBidSize } from '../../src/auction/sizes.js';

const bid = (w?: number, h?: number): Bid => ({ id: 'b', impid: '1', price: 1, ...(w === undefined ? {} : { w }), ...(h === undefined ? {} : { h }) });

describe('impSizesOf', () => {
  it('collects banner and format sizes once each, and flex formats apart', () => {
    const imp: Imp = {
      id: '1',
      banner: { w: 300, h: 250, format: [{ w: 300, h: 250 }, { w: 300, h: 600 }, { wratio: 4, hratio: 3, wmin: 100 }, { w: 0, h: 0 }] },
    };
    expect(impSizesOf(imp)).toEqual({
      fixed: [{ w: 300, h: 250 }, { w: 300, h: 600 }],
      flex: [{ wratio: 4, hratio: 3, wmin: 100 }],
      anySize: false,
    });
  });

  it('an interstitial without sizes accepts any size; a plain imp without sizes does not', () => {
    expect(impSizesOf({ id: '1', instl: 1, banner: { w: 0, h: 0 } }).anySize).toBe(true);
    expect(impSizesOf({ id: '1', banner: {} }).anySize).toBe(false);
  });
});

describe('matchBidSize', () => {
  const one = impSizesOf({ id: '1', banner: { format: [{ w: 320, h: 50 }] } });
  const flex = impSizesOf({ id: '1', banner: { format: [{ wratio: 4, hratio: 3, wmin: 100 }] } });
  const interstitial = impSizesOf({ id: '1', instl: 1, banner: {} });

  it.each([
    { name: 'exact size', sizes: one, bid: bid(320, 50), expected: { w: 320, h: 50 } },
    { name: 'unsized bid takes the only size', sizes: one, bid: bid(), expected: { w: 320, h: 50 } },
    { name: 'other size', sizes: one, bid: bid(300, 250), expected: null },
    { name: 'flex ratio', sizes: flex, bid: bid(400, 300), expected: { w: 400, h: 300 } },
    { name: 'flex ratio under wmin', sizes: flex, bid: bid(80, 60), expected: null },
    { name: 'unsized bid on flex', sizes: flex, bid: bid(), expected: null },
    { name: 'interstitial, sized bid', sizes: interstitial, bid: bid(320, 480), expected: { w: 320, h: 480 } },
    { name: 'interstitial, unsized bid', sizes: interstitial, bid: bid(), expected: 'unknown' },
    { name: 'negative size', sizes: one, bid: bid(-320, -50), expected: null },
  ])('$name', ({ sizes, bid: b, expected }) => {
    expect(matchBidSize(b, sizes)).toEqual(expected);
  });
});
