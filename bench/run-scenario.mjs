/**
 * Measures one scenario: starts a fresh exchange (own SQLite file) and a baseline against the
 * given dsp-sim partners, (d) a webhook endpoint and receiver (the baseline POSTs its own signed
 * auction.complete events to the same receiver, as adx does; its deliveries are counted apart
 * and left to land before each adx run), warms both up, then alternates
 * runs (baseline, adx, baseline, adx, ...) so machine noise hits both alike, then one paced run at
 * a fixed rate against the exchange for the latency columns. Stops what it started, by pid.
 * Importing this module does nothing.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { exchangeDelta, scrapeMetrics } from './exchange-metrics.mjs';
import { runClosedLoop, runPaced, runWrk } from './load.mjs';
import { freePort, peakRss } from './processes.mjs';
import { BID_PATH, TMAX_MS, requestFor } from './scenarios.mjs';
import { median } from './table.mjs';

/**
 * @typedef {object} RunSettings
 * @property {number} durationSec length of each measured run, s
 * @property {number} warmupSec warm-up per target before the measured runs, s
 * @property {number} pairs how many (baseline, adx) pairs of runs
 * @property {number} connections autocannon connections of the throughput runs
 * @property {number} overloadConnections autocannon connections of the 2x-saturation runs
 * @property {number} fixedRate offered req/s of the latency run
 * @property {'paced' | 'autocannon'} fixedRateLoader generator of the latency run
 * @property {'autocannon' | 'wrk'} loader generator of the throughput runs
 * @property {string[]} serveArgs extra `adx serve` flags
 * @property {string[]} nodeArgs extra node flags of the exchange (e.g. --cpu-prof)
 * @property {string} tmpDir parent folder for per-scenario temp folders
 * @property {import('./processes.mjs').CpuLayout | undefined} layout pinned CPUs (wrk runs on `layout.load`)
 * @property {number} workers exchange processes (`serve --workers`), for scraping every worker's counters
 * @property {(line: string) => void} log progress output
 */

/**
 * What a scenario measured.
 * @typedef {object} ScenarioResult
 * @property {import('./table.mjs').ScenarioFigures} figures the table row
 * @property {string[]} notes details for the text under the table
 */

/** @param {string} url @param {RequestInit} init */
async function fetchJson(url, init) {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

/**
 * Registers the webhook endpoint and starts the receiver; answers undefined (and why) when the
 * exchange or the CLI does not offer them yet.
 * @param {import('./processes.mjs').ProcessGroup} group
 * @param {string} adxUrl
 * @param {string} adminKey
 */
async function setUpWebhooks(group, adxUrl, adminKey) {
  const port = await freePort();
  let created;
  try {
    created = await fetchJson(`${adxUrl}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}`, events: ['auction.complete'], description: 'bench' }),
    });
  } catch (error) {
    return { why: `endpoint API: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (created.status !== 201 || typeof created.json?.secret !== 'string') return { why: `POST /v1/webhook-endpoints answered ${created.status}` };
  try {
    const receiver = await group.startWebhookReceiver({ secret: created.json.secret, port });
    return { receiver, secret: /** @type {string} */ (created.json.secret) };
  } catch (error) {
    return { why: `receiver: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}` };
  }
}

/** @param {import('./processes.mjs').Child} receiver @returns {Promise<number>} verified deliveries so far */
async function verifiedDeliveries(receiver) {
  const { json } = await fetchJson(`${receiver.url}/stats`, {});
  return Number(json?.verified ?? 0);
}

/**
 * Verified deliveries once the count has stopped moving for 500 ms (at most 15 s).
 * @param {import('./processes.mjs').Child} receiver
 */
async function settledDeliveries(receiver) {
  let last = await verifiedDeliveries(receiver);
  for (let waited = 0; waited < 15_000; waited += 500) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await verifiedDeliveries(receiver);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/**
 * Runs one scenario.
 * @param {{ scenario: import('./scenarios.mjs').Scenario, group: import('./processes.mjs').ProcessGroup, partnerUrls: string[], settings: RunSettings, saturationRps?: number }} o
 * @returns {Promise<ScenarioResult>}
 */
export async function runScenario({ scenario, group, partnerUrls, settings, saturationRps }) {
  const { log } = settings;
  const dir = await mkdtemp(join(settings.tmpDir, `scenario-${scenario.id}-`));
  const apiKey = `adxk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const adminKey = `admin-bench-${Math.random().toString(36).slice(2)}`;
  /** @type {string[]} */
  const notes = [];
  const partners = partnerUrls.slice(0, scenario.partners);
  const [adxStart, baselineStart] = await Promise.allSettled([
    group.startExchange({ dir, apiKey, adminKey, partnerUrls: partners, webhooks: scenario.webhooks, nodeArgs: settings.nodeArgs, serveArgs: settings.serveArgs }),
    // With webhooks the baseline starts once the receiver is up: it POSTs to it as adx does.
    scenario.webhooks ? Promise.resolve(undefined) : group.startBaseline({ partnerUrls: partners }),
  ]);
  if (adxStart.status === 'rejected' || baselineStart.status === 'rejected') {
    for (const started of [adxStart, baselineStart]) if (started.status === 'fulfilled' && started.value) await group.stop(started.value);
    throw adxStart.status === 'rejected' ? adxStart.reason : /** @type {PromiseRejectedResult} */ (baselineStart).reason;
  }
  const adx = adxStart.value;
  /** @type {import('./processes.mjs').Child | undefined} */
  let baseline = baselineStart.value;
  /** @type {import('./processes.mjs').Child | undefined} */
  let receiver;
  try {
    if (scenario.webhooks) {
      const hooks = await setUpWebhooks(group, adx.url, adminKey);
      if (!hooks.receiver) {
        log(`${scenario.title}: webhooks not available (${hooks.why})`);
        notes.push(`${scenario.title}: n/a, ${hooks.why}`);
        return { figures: { scenario: scenario.title, na: 'webhooks not available' }, notes };
      }
      receiver = hooks.receiver;
      baseline = await group.startBaseline({ partnerUrls: partners, webhook: { url: `${receiver.url}/webhooks/auction-complete`, secret: hooks.secret } });
    }
    if (!baseline) throw new Error(`${scenario.title}: the baseline did not start`);
    const { headers, body } = requestFor(scenario, apiKey);
    // A cold exchange may miss the first deadlines (new partner connections, JIT): probe until a 200.
    /** @type {number[]} */
    const probeStatuses = [];
    for (let i = 0; i < 20 && probeStatuses.at(-1) !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      const probe = await fetch(`${adx.url}${BID_PATH}`, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body), signal: AbortSignal.timeout(5000) });
      await probe.arrayBuffer();
      probeStatuses.push(probe.status);
    }
    if (probeStatuses.at(-1) !== 200) throw new Error(`${scenario.title}: the exchange answered probe bid requests ${probeStatuses.join(',')}, never 200`);

    const target = (/** @type {string} */ url) => ({ url, path: BID_PATH, headers, body, tmaxMs: TMAX_MS });
    const overallRate = scenario.overload && saturationRps ? Math.round(2 * saturationRps) : undefined;
    const connections = scenario.overload ? settings.overloadConnections : settings.connections;
    if (scenario.overload) notes.push(`${scenario.title}: offered ${overallRate} req/s (2 x ${Math.round(saturationRps ?? 0)}) over ${connections} connections to both servers`);
    const closedRun = (/** @type {string} */ url, /** @type {number} */ durationSec) =>
      settings.loader === 'wrk' && !overallRate
        ? runWrk({ ...target(url), durationSec, connections, cpus: settings.layout?.load, threads: settings.layout?.loadCpus })
        : runClosedLoop({ ...target(url), durationSec, connections, overallRate });

    let adx200 = 1;
    /** Verified deliveries the baseline made (the receiver counts both servers' webhooks). */
    let baselineDeliveries = 0;
    for (const [name, url] of [['baseline', baseline.url], ['adx', adx.url]]) {
      const hooksBefore = receiver && name === 'baseline' ? await verifiedDeliveries(receiver) : 0;
      const warm = await closedRun(url, settings.warmupSec);
      if (name === 'adx') adx200 += warm.statusCounts['200'] ?? 0;
      if (receiver && name === 'baseline') baselineDeliveries += (await settledDeliveries(receiver)) - hooksBefore;
    }

    /** @type {number[]} */ const baseRps = [];
    /** @type {number[]} */ const adxRps = [];
    /** @type {number[]} */ const hookRates = [];
    /** @type {number[]} */ const winRates = [];
    /** @type {number[]} */ const outboxDepths = [];
    let adxLate = 0;
    let shed = 0;
    let non2xx = 0;
    let late = 0;
    let baseLate = 0;
    /** @type {Record<string, number>} */
    const adxStatuses = {};
    /** @type {{ p50: number, p99: number, max: number } | undefined} */
    let overloadLatency;
    for (let i = 1; i <= settings.pairs; i++) {
      const baseHooksBefore = receiver ? await verifiedDeliveries(receiver) : 0;
      const b = await closedRun(baseline.url, settings.durationSec);
      baseRps.push(b.requestsPerSec);
      baseLate += b.late;
      // The baseline's webhooks are fire and forget: let them land before adx's run is counted.
      const baseHooks = receiver ? (await settledDeliveries(receiver)) - baseHooksBefore : 0;
      baselineDeliveries += baseHooks;
      log(
        `${scenario.title}: baseline run ${i}/${settings.pairs}: ${b.requestsPerSec.toFixed(0)} req/s, non-2xx ${b.non2xx}, late ${b.late}` +
          (receiver ? `, webhooks ${baseHooks} verified (${(baseHooks / b.durationSec).toFixed(0)}/s)` : ''),
      );
      const before = receiver ? await verifiedDeliveries(receiver) : 0;
      const metricsBefore = await scrapeMetrics(adx.url, settings.workers);
      const a = await closedRun(adx.url, settings.durationSec);
      if (receiver) hookRates.push(((await verifiedDeliveries(receiver)) - before) / a.durationSec);
      const counted = exchangeDelta(metricsBefore, await scrapeMetrics(adx.url, settings.workers));
      winRates.push(counted.wins / a.durationSec);
      outboxDepths.push(counted.outboxDepth);
      adxLate += counted.late;
      shed += counted.shed;
      adx200 += counted.wins;
      adxRps.push(a.requestsPerSec);
      non2xx += a.non2xx;
      late += a.late;
      for (const [status, n] of Object.entries(a.statusCounts)) adxStatuses[status] = (adxStatuses[status] ?? 0) + n;
      if (scenario.overload && a.latencyMs && (!overloadLatency || a.latencyMs.p99 > overloadLatency.p99)) overloadLatency = a.latencyMs;
      log(
        `${scenario.title}: adx      run ${i}/${settings.pairs}: ${a.requestsPerSec.toFixed(0)} req/s, non-2xx ${a.non2xx}, late ${a.late} (exchange: ${counted.late}), ` +
          `shed ${counted.shed}, wins ${winRates.at(-1)?.toFixed(0)}/s${receiver ? `, webhooks ${hookRates.at(-1)?.toFixed(0)}/s, outbox ${counted.outboxDepth}` : ''}`,
      );
    }

    /** @type {import('./table.mjs').ScenarioFigures} */
    const figures = {
      scenario: scenario.title,
      adxRps: median(adxRps),
      baselineRps: median(baseRps),
      non2xx,
      late,
      adxLate,
      winsPerSec: median(winRates),
      webhooksPerSec: median(hookRates),
      outboxDepths: receiver ? outboxDepths : undefined,
    };
    if (shed > 0) notes.push(`${scenario.title}: the exchange shed ${shed} requests over its throughput runs`);
    if (scenario.overload) {
      // The latency columns of (e) are the adx answers under 2x saturation (worst run by p99).
      Object.assign(figures, { p50Ms: overloadLatency?.p50, p99Ms: overloadLatency?.p99, maxMs: overloadLatency?.max });
      notes.push(`${scenario.title}: adx answers by status ${JSON.stringify(adxStatuses)}; baseline late answers ${baseLate}; latency columns are from the 2x runs (worst p99)`);
    } else {
      const fixedTarget = { ...target(adx.url), durationSec: settings.durationSec };
      const metricsBefore = await scrapeMetrics(adx.url, settings.workers);
      const f =
        settings.fixedRateLoader === 'paced'
          ? await runPaced({ ...fixedTarget, ratePerSec: settings.fixedRate, connections: 64 })
          : await runClosedLoop({ ...fixedTarget, connections: 50, overallRate: settings.fixedRate });
      const counted = exchangeDelta(metricsBefore, await scrapeMetrics(adx.url, settings.workers));
      adx200 += counted.wins;
      Object.assign(figures, { p50Ms: f.latencyMs?.p50, p99Ms: f.latencyMs?.p99, maxMs: f.latencyMs?.max, loopP99Ms: counted.loopDelayP99Ms, loopMaxMs: counted.loopDelayMaxMs, adxP99BoundMs: counted.bidP99BoundMs });
      figures.adxLate = (figures.adxLate ?? 0) + counted.late;
      if (counted.shed > 0) notes.push(`${scenario.title}: the exchange shed ${counted.shed} requests in the ${settings.fixedRate} req/s run ${JSON.stringify(counted.shedByReason)}`);
      // Late answers count in the autocannon runs only (write -> answer); the paced run's
      // latencies start at the scheduled instant and include queueing in the load generator.
      figures.non2xx = (figures.non2xx ?? 0) + f.non2xx;
      log(
        `${scenario.title}: adx at ${settings.fixedRate} req/s offered: ${f.requestsPerSec.toFixed(0)} req/s, p50 ${f.latencyMs?.p50.toFixed(2)} ms, p99 ${f.latencyMs?.p99.toFixed(2)} ms, max ${f.latencyMs?.max.toFixed(1)} ms, ` +
          `event-loop delay p99 ${counted.loopDelayP99Ms.toFixed(1)} ms, max ${counted.loopDelayMaxMs.toFixed(1)} ms, ` +
          `exchange's own p99 <= ${counted.bidP99BoundMs ?? '?'} ms` +
          (f.sendLagMs ? `; the generator sent late by p99 ${f.sendLagMs.p99.toFixed(2)} ms, max ${f.sendLagMs.max.toFixed(1)} ms` : ''),
      );
    }

    if (receiver) {
      // Let the outbox drain, then compare deliveries with the auctions that produced events.
      const drainUntil = Date.now() + Math.max(3_000, settings.durationSec * 1000);
      // Every 200 of the exchange's life (probes, warm-up, runs) as it counted them.
      adx200 = (await scrapeMetrics(adx.url, settings.workers)).value('adx_requests_total', { type: 'bid', status: 'ok' });
      let delivered = (await verifiedDeliveries(receiver)) - baselineDeliveries;
      while (delivered < adx200 && Date.now() < drainUntil) {
        await new Promise((r) => setTimeout(r, 250));
        delivered = (await verifiedDeliveries(receiver)) - baselineDeliveries;
      }
      const depth = (await scrapeMetrics(adx.url, settings.workers)).value('adx_outbox_depth');
      notes.push(`${scenario.title}: ${adx200} bid responses with a winning bid (one auction.complete each, counted by the exchange); ${delivered} verified deliveries from the exchange after the drain wait (the baseline's ${baselineDeliveries} left out); outbox depth then ${depth}`);
    }
    const rss = await peakRss(adx.pid, { withChildren: settings.workers > 1 });
    figures.peakRssMiB = rss?.mib;
    if (rss?.source === 'ps') notes.push(`${scenario.title}: RSS is the current RSS from ps at the end (no /proc VmHWM)`);
    return { figures, notes };
  } finally {
    if (receiver) await group.stop(receiver);
    if (baseline) await group.stop(baseline);
    await group.stop(adx);
  }
}
