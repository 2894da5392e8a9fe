/**
 * `node bench/privacy-cost.mjs` (after `npm run build`): CPU cost per request of the privacy step
 * (DESIGN section 11) in-process, independent of machine load from other processes more than the
 * HTTP bench is: reading the signals and deciding for one partner, with no signal, with GDPR and
 * a cached TC string, with a blocked partner, with a COPPA copy; and a TC string decoded without
 * the cache (a first-seen string). Prints microseconds per operation, 3 rounds.
 */
import { createPrivacyEnforcer } from '../dist/privacy/index.js';
import { decodeTcf } from '../dist/privacy/tcf.js';
import { BENCH_GVL_VENDOR_ID, BENCH_TC_STRING, benchBidRequest } from './scenarios.mjs';

const plain = benchBidRequest();
const gdpr = { ...plain, regs: { gdpr: 1 }, user: { ...plain.user, consent: BENCH_TC_STRING } };
const coppa = { ...plain, regs: { coppa: 1 } };
const enforcer = createPrivacyEnforcer();
const partner = { gvlVendorId: BENCH_GVL_VENDOR_ID };
const blocked = { gvlVendorId: 33 };

/** Runs `fn` `n` times after a warm-up and prints the mean in microseconds. */
function time(label, n, fn) {
  for (let i = 0; i < 2000; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  const us = Number(process.hrtime.bigint() - start) / 1000 / n;
  process.stdout.write(`${label.padEnd(44)} ${us.toFixed(2).padStart(7)} us/op\n`);
}

for (let round = 1; round <= 3; round++) {
  process.stdout.write(`round ${round}\n`);
  time('no privacy signal', 200_000, () => enforcer.forRequest(plain).forPartner(partner));
  time('GDPR, cached TC string, partner called', 200_000, () => enforcer.forRequest(gdpr).forPartner(partner));
  time('GDPR, cached TC string, partner blocked', 200_000, () => enforcer.forRequest(gdpr).forPartner(blocked));
  time('COPPA (reduced copy)', 200_000, () => enforcer.forRequest(coppa).forPartner(partner));
  time('TC string decoded without the cache', 20_000, () => decodeTcf(BENCH_TC_STRING));
}
