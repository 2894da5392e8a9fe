/**
 * The cold-start row (issue 15): per pair, a fresh exchange (own SQLite file) is started and, the
 * moment `/readyz` answers 200, `COLD_BURST.clients` clients each send
 * `COLD_BURST.requestsPerClient` requests one after another (`tmax` `COLD_BURST.tmaxMs`) against
 * one partner answering at once. Every request should get a bid: a 204 here is a shed answer or
 * a commit past the deadline. The row reports the burst's latency, answers later than tmax as the
 * client saw them and as the exchange counted them, and the notes the time to ready and the
 * exchange's shed counters. No baseline (a bare server has nothing to warm). Importing this
 * module does nothing.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { Pool } from 'undici';
import { exchangeDelta, scrapeMetrics } from './exchange-metrics.mjs';
import { peakRss } from './processes.mjs';
import { BID_PATH, COLD_BURST, requestFor } from './scenarios.mjs';
import { median } from './table.mjs';

/**
 * Runs the cold-start scenario.
 * @param {{ scenario: import('./scenarios.mjs').Scenario, group: import('./processes.mjs').ProcessGroup, partnerUrls: string[], settings: import('./run-scenario.mjs').RunSettings }} o
 * @returns {Promise<import('./run-scenario.mjs').ScenarioResult>}
 */
export async function runColdStart({ scenario, group, partnerUrls, settings }) {
  /** @type {string[]} */
  const notes = [];
  /** @type {number[]} */
  const latencies = [];
  /** @type {number[]} */
  const readyMs = [];
  /** @type {Record<string, number>} */
  const statuses = {};
  let clientLate = 0;
  let adxLate = 0;
  let errors = 0;
  let shed = 0;
  /** @type {number | undefined} */
  let rssMiB;
  for (let i = 1; i <= settings.pairs; i++) {
    const dir = await mkdtemp(join(settings.tmpDir, `scenario-${scenario.id}-${i}-`));
    const apiKey = `adxk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    const adx = await group.startExchange({
      dir,
      apiKey,
      adminKey: `admin-bench-${Math.random().toString(36).slice(2)}`,
      partnerUrls: partnerUrls.slice(0, scenario.partners),
      nodeArgs: settings.nodeArgs,
      serveArgs: settings.serveArgs,
    });
    try {
      readyMs.push(adx.readyAfterMs);
      const before = await scrapeMetrics(adx.url, settings.workers);
      const { headers, body } = requestFor(scenario, apiKey);
      const pool = new Pool(adx.url, { connections: COLD_BURST.clients, pipelining: 1 });
      let runLate = 0;
      const client = async () => {
        for (let n = 0; n < COLD_BURST.requestsPerClient; n++) {
          const started = performance.now();
          try {
            const res = await pool.request({ method: 'POST', path: BID_PATH, headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
            await res.body.dump();
            const ms = performance.now() - started;
            latencies.push(ms);
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            if (ms > COLD_BURST.tmaxMs) runLate++;
          } catch {
            errors++;
          }
        }
      };
      await Promise.all(Array.from({ length: COLD_BURST.clients }, client));
      await pool.close();
      clientLate += runLate;
      const counted = exchangeDelta(before, await scrapeMetrics(adx.url, settings.workers));
      adxLate += counted.late;
      shed += counted.shed;
      rssMiB = Math.max(rssMiB ?? 0, (await peakRss(adx.pid, { withChildren: settings.workers > 1 }))?.mib ?? 0);
      settings.log(
        `${scenario.title}: start ${i}/${settings.pairs}: ready after ${adx.readyAfterMs.toFixed(0)} ms; burst ${JSON.stringify(statuses)} so far, ` +
          `late ${runLate} (exchange: ${counted.late}), shed ${JSON.stringify(counted.shedByReason)}`,
      );
    } finally {
      await group.stop(adx);
    }
  }
  latencies.sort((a, b) => a - b);
  const pick = (/** @type {number} */ p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  const non2xx = errors + Object.entries(statuses).reduce((n, [status, count]) => n + (Number(status) >= 200 && Number(status) < 300 ? 0 : count), 0);
  notes.push(
    `${scenario.title}: ${settings.pairs} fresh start(s), ${COLD_BURST.clients} clients x ${COLD_BURST.requestsPerClient} requests (tmax ${COLD_BURST.tmaxMs} ms) as soon as /readyz answered 200 ` +
      `(median ${median(readyMs)?.toFixed(0)} ms after spawn); answers by status ${JSON.stringify(statuses)}, shed by the exchange ${shed}, answers without a bid (204) ${statuses['204'] ?? 0}; ` +
      `latency columns are the burst's, from request written to answer complete`,
  );
  return {
    figures: {
      scenario: scenario.title,
      p50Ms: pick(0.5),
      p99Ms: pick(0.99),
      maxMs: latencies.at(-1),
      non2xx,
      late: clientLate,
      adxLate,
      peakRssMiB: rssMiB,
    },
    notes,
  };
}
