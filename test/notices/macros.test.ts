import { describe, expect, it } from 'vitest';
import { formatCpm, formatDecimal, substituteMacros, type MacroValues } from '../../src/notices/macros.js';

const all: MacroValues = {
  auctionId: 'req-1',
  bidId: 'bid-2',
  impId: 'imp-3',
  seatId: 'seat-4',
  adId: 'ad-5',
  priceMicros: 1_230_000,
  currency: 'EUR',
  mbr: 0.75,
  loss: 102,
};

describe('substituteMacros (OpenRTB 2.5 section 4.4)', () => {
  it('substitutes every 2.5 macro', () => {
    const template =
      'https://dsp.example/n?a=${AUCTION_ID}&b=${AUCTION_BID_ID}&i=${AUCTION_IMP_ID}&s=${AUCTION_SEAT_ID}' +
      '&ad=${AUCTION_AD_ID}&p=${AUCTION_PRICE}&c=${AUCTION_CURRENCY}&m=${AUCTION_MBR}&l=${AUCTION_LOSS}';
    expect(substituteMacros(template, all)).toBe('https://dsp.example/n?a=req-1&b=bid-2&i=imp-3&s=seat-4&ad=ad-5&p=1.23&c=EUR&m=0.75&l=102');
  });

  it('substitutes every occurrence, and macros side by side', () => {
    expect(substituteMacros('${AUCTION_PRICE}${AUCTION_PRICE}|${AUCTION_CURRENCY}${AUCTION_PRICE}', all)).toBe('1.231.23|EUR1.23');
  });

  it('substitutes the percent-encoded forms, hex digits in either case', () => {
    expect(substituteMacros('p=%24%7BAUCTION_PRICE%7D&q=%24%7bAUCTION_PRICE%7d&c=%24%7BAUCTION_CURRENCY%7d', all)).toBe('p=1.23&q=1.23&c=EUR');
    expect(substituteMacros('<img src="https://t.example/i?id=%24%7BAUCTION_ID%7D&p=%24%7BAUCTION_PRICE%3AB64%7D">', all)).toBe(
      `<img src="https://t.example/i?id=req-1&p=${encodeURIComponent(Buffer.from('1.23').toString('base64'))}">`,
    );
  });

  it('replaces a known macro without a value with the empty string', () => {
    expect(substituteMacros('a=${AUCTION_AD_ID}&p=${AUCTION_PRICE}&l=%24%7BAUCTION_LOSS%7D&m=${AUCTION_MBR}', {})).toBe('a=&p=&l=&m=');
    expect(substituteMacros('p=${AUCTION_PRICE}', { priceMicros: Number.NaN })).toBe('p=');
  });

  it('leaves unknown, custom, lower-case and unsupported-encoding macros alone', () => {
    const template = '${CUSTOM_KEY} ${AUCTION_MAX_TO_LOSE} ${auction_price} ${AUCTION_PRICE:XYZ} %24%7BOTHER%7D ${ AUCTION_PRICE } $AUCTION_PRICE {AUCTION_PRICE}';
    expect(substituteMacros(template, all)).toBe(template);
  });

  it('resolves the OpenRTB 2.6 ${AUCTION_MIN_TO_WIN} as a price, empty without a value', () => {
    expect(substituteMacros('l=${AUCTION_LOSS}&m=${AUCTION_MIN_TO_WIN}', { loss: 102, minToWinMicros: 2_010_000 })).toBe('l=102&m=2.01');
    expect(substituteMacros('m=%24%7BAUCTION_MIN_TO_WIN%7D', {})).toBe('m=');
  });

  it('answers the same string when there is nothing to substitute', () => {
    const template = 'https://dsp.example/win?x=1&y=%20';
    expect(substituteMacros(template, all)).toBe(template);
    expect(substituteMacros('', all)).toBe('');
  });

  it('URL-encodes string values and never throws on odd strings', () => {
    const values: MacroValues = { auctionId: 'a b&c=d/é?#', seatId: 'x\uD800y' };
    expect(substituteMacros('${AUCTION_ID}', values)).toBe(encodeURIComponent('a b&c=d/é?#'));
    expect(substituteMacros('${AUCTION_SEAT_ID}', values)).toBe('x%EF%BF%BDy');
    // A value that itself looks like a macro is not substituted again.
    expect(substituteMacros('${AUCTION_ID}', { auctionId: '${AUCTION_PRICE}' })).toBe(encodeURIComponent('${AUCTION_PRICE}'));
  });

  it('encodes with :B64 (base64 of the value, then URL-encoded)', () => {
    expect(substituteMacros('${AUCTION_PRICE:B64}', { priceMicros: 2_500_000 })).toBe(encodeURIComponent(Buffer.from('2.5').toString('base64')));
    expect(substituteMacros('${AUCTION_ID:B64}', {})).toBe('');
  });

  it('writes prices and ratios without exponent', () => {
    expect(substituteMacros('${AUCTION_PRICE}', { priceMicros: 1 })).toBe('0.000001');
    // 2^100 micros: the whole part is past what String() writes without exponent (1e21).
    expect(substituteMacros('${AUCTION_PRICE}', { priceMicros: 2 ** 100 })).toBe('1267650600228229401496703.205376');
    expect(substituteMacros('${AUCTION_MBR}', { mbr: 0.0000001 })).toBe('0');
    expect(substituteMacros('${AUCTION_MBR}', { mbr: 1 / 3 })).toBe('0.333333');
    expect(substituteMacros('${AUCTION_MBR}', { mbr: 1e21 })).toBe('1000000000000000000000');
  });
});

describe('formatCpm', () => {
  it('writes micros as a plain decimal without trailing zeros', () => {
    expect(formatCpm(1_230_000)).toBe('1.23');
    expect(formatCpm(500_000)).toBe('0.5');
    expect(formatCpm(2_000_000)).toBe('2');
    expect(formatCpm(1)).toBe('0.000001');
    expect(formatCpm(100)).toBe('0.0001');
    expect(formatCpm(0)).toBe('0');
    expect(formatCpm(-0)).toBe('0');
    expect(formatCpm(-500_000)).toBe('-0.5');
    expect(formatCpm(1_000_000.4)).toBe('1');
    expect(formatCpm(123_456_789_012)).toBe('123456.789012');
  });

  it('never uses exponent form, even beyond 1e21 units', () => {
    expect(formatCpm(1e21)).toBe('1000000000000000');
    // Exact value of the double nearest 1e27 (doubles that large are integers).
    expect(formatCpm(1e27)).toBe('1000000000000000013287.555072');
    expect(formatCpm(2 ** 90)).toBe('1237940039285380274899.124224');
    expect(formatCpm(2 ** 60)).toBe('1152921504606.846976');
    expect(formatCpm(Number.MAX_SAFE_INTEGER)).toBe('9007199254.740991');
  });

  it('answers the empty string for non-finite input', () => {
    expect(formatCpm(Number.NaN)).toBe('');
    expect(formatCpm(Number.POSITIVE_INFINITY)).toBe('');
  });
});

describe('formatDecimal', () => {
  it('never uses exponent form', () => {
    expect(formatDecimal(0.0000001, 6)).toBe('0');
    expect(formatDecimal(0.0000001, 7)).toBe('0.0000001');
    expect(formatDecimal(1e21, 6)).toBe('1000000000000000000000');
    expect(formatDecimal(-1e21, 6)).toBe('-1000000000000000000000');
    expect(formatDecimal(0.25, 6)).toBe('0.25');
    expect(formatDecimal(-0.0000001, 6)).toBe('0');
    expect(formatDecimal(10, 6)).toBe('10');
    expect(formatDecimal(Number.NaN, 6)).toBe('');
  });
});
