/**
 * The current currency rates (DESIGN section 4): the bundled table, replaced by config or the
 * admin API. Readers call `get()` per use, so a replacement applies to the next auction.
 */
import { CurrencyConverter, type RatesTable } from './currency.js';

/** Holds the converter in force. */
export interface RatesHolder {
  get(): CurrencyConverter;
  /** Replaces the table. @throws Error when the table is invalid (see CurrencyConverter). */
  set(table: RatesTable): void;
}

/** A holder starting with `initial`. */
export function createRatesHolder(initial: RatesTable): RatesHolder {
  let current = new CurrencyConverter(initial);
  return {
    get: () => current,
    set(table) {
      current = new CurrencyConverter(table);
    },
  };
}
