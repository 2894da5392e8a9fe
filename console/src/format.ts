/** Number and time formats of the console (en-US, UTC times, USD). */

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });
const usd2 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dec = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** Display formats: counts, percentages, USD amounts (decimal, from the API), CPM and milliseconds. */
export const fmt = {
  /** A decimal USD amount (sub-cent amounts keep 4 decimals). */
  usd: (v: number) => (Math.abs(v) >= 1 || v === 0 ? usd2.format(v) : usd.format(v)),
  int: (v: number) => int.format(v),
  dec: (v: number) => dec.format(v),
  /** A rate in [0, 1] as a percentage. */
  pct: (v: number) => `${dec.format(v * 100)}%`,
  ms: (v: number) => `${dec.format(v)} ms`,
  perSecond: (v: number) => `${dec.format(v)}/s`,
  /** An ISO instant as `YYYY-MM-DD HH:MM:SS UTC`. */
  time: (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '—'),
};

/** Today's UTC date, `YYYY-MM-DD`. */
export function utcToday(nowMs = Date.now()): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** `n / d`, 0 when `d` is 0. */
export function ratio(n: number, d: number): number {
  return d === 0 ? 0 : n / d;
}
