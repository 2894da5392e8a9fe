/**
 * Currency conversion over a dated rates table (DESIGN section 4). Rates are units of the
 * currency per 1 USD (the exchange currency), as `GET /v1/currency/rates` answers them.
 * Amounts are integer micros; conversions round half away from zero.
 */
import { scaleMicros, type Micros } from './money.js';
import { bundledRates } from './currency-rates.js';

/** A rates table: `{base: "USD", date: "YYYY-MM-DD", rates: {EUR: 0.92, ...}}`; USD is always 1. */
export interface RatesTable {
  base: 'USD';
  date: string;
  rates: Record<string, number>;
}

/** ISO-4217 shape: three upper-case letters. */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/**
 * Converts between USD micros and other currencies' micros. Immutable; replace the whole
 * converter to change rates (the admin API does that).
 */
export class CurrencyConverter {
  private readonly rates: Map<string, number>;

  /** @throws Error when a rate is not a positive finite number or a code is not ISO-4217 shaped. */
  constructor(readonly table: RatesTable) {
    this.rates = new Map();
    for (const [code, rate] of Object.entries(table.rates)) {
      if (!CURRENCY_CODE.test(code)) throw new Error(`currency code ${JSON.stringify(code)} is not three upper-case letters`);
      if (!(typeof rate === 'number' && Number.isFinite(rate) && rate > 0)) throw new Error(`rate for ${code} must be a positive number`);
      this.rates.set(code, rate);
    }
    this.rates.set('USD', 1);
  }

  /** True when the table has a rate for `currency`. */
  has(currency: string): boolean {
    return this.rates.has(currency);
  }

  /** Units of `currency` per 1 USD, or undefined without a rate. */
  rate(currency: string): number | undefined {
    return this.rates.get(currency);
  }

  /** `micros` of `currency` in USD micros; undefined when the currency has no rate. */
  toUsd(micros: Micros, currency: string): Micros | undefined {
    if (currency === 'USD') return micros;
    const rate = this.rates.get(currency);
    return rate === undefined ? undefined : scaleMicros(micros, 1, rate);
  }

  /** USD micros in micros of `currency`; undefined when the currency has no rate. */
  fromUsd(usdMicros: Micros, currency: string): Micros | undefined {
    if (currency === 'USD') return usdMicros;
    const rate = this.rates.get(currency);
    return rate === undefined ? undefined : scaleMicros(usdMicros, rate, 1);
  }
}

/** The converter over the bundled table (ECB reference rates, see currency-rates.ts). */
export function bundledConverter(): CurrencyConverter {
  return new CurrencyConverter(bundledRates);
}
