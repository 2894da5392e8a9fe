import type { RatesTable } from './currency.js';

/**
 * The bundled rates table: the ECB euro foreign exchange reference rates (the ECB's list of
 * currencies), rebased to USD (units of the currency per 1 USD), plus USD itself. Operators
 * replace it through config (`currency.rates`) or `PUT /v1/currency/rates`.
 * Dated: these are reference values for the date given, rounded to 6 significant digits.
 */
export const bundledRates: RatesTable = {
  base: 'USD',
  date: '2026-10-30',
  rates: {
    USD: 1,
    EUR: 0.862813,
    JPY: 153.912,
    BGN: 1.68751,
    CZK: 21.0096,
    DKK: 6.44371,
    GBP: 0.760524,
    HUF: 335.808,
    PLN: 3.66451,
    RON: 4.39042,
    SEK: 9.48838,
    CHF: 0.802864,
    ISK: 126.079,
    NOK: 10.0673,
    TRY: 42.0388,
    AUD: 1.52433,
    BRL: 5.37963,
    CAD: 1.40039,
    CNY: 7.11304,
    HKD: 7.77480,
    IDR: 16636.4,
    ILS: 3.25953,
    INR: 88.6804,
    KRW: 1431.83,
    MXN: 18.5185,
    MYR: 4.19068,
    NZD: 1.74530,
    PHP: 58.9706,
    SGD: 1.30199,
    THB: 32.4246,
    ZAR: 17.3264,
  },
};
