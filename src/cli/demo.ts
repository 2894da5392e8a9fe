/**
 * `adx demo` (`npm run demo`): the exchange and three simulated DSPs as separate processes on
 * loopback, the conformance corpus (when present) and generated traffic for `--duration`
 * seconds (0: until Ctrl-C), win and billing notices for a share of the bids as a publisher would
 * send them, then a summary table. The operator console's URL and admin key are printed at start,
 * and the console is served for as long as the traffic runs. Exits 0 when the run worked
 * (non-zero wins), 1 otherwise.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Pool, request as httpRequest } from 'undici';
import type { BidResponse } from '../domain/openrtb.js';
import { startCliChild, type StartedChild } from './child-process.js';
import { freePort } from './free-port.js';
import { readCorpus } from './demo-corpus.js';
import { printSummary, type DemoTotals } from './demo-summary.js';
import { createRng, generateBidRequest } from './demo-traffic.js';

/** Demo options (CLI flags). */
export interface DemoOptions {
  /** Seconds of generated traffic; 0 = until SIGINT (Ctrl-C) or SIGTERM. */
  durationSeconds: number;
  /** Concurrent bid requests in flight. */
  concurrency: number;
  /** Share of bids whose win notice is fired, in [0, 1]. */
  winShare: number;
  /** Share of won bids that become billable (burl or pixel), in [0, 1]. */
  billShare: number;
  seed: number;
  /** Extra node flags for the exchange process (e.g. `--cpu-prof`), from `--exchange-node-args`. */
  exchangeNodeArgs?: string[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs the demo and answers its totals. */
export async function runDemo(options: DemoOptions): Promise<DemoTotals> {
  const dir = await mkdtemp(join(tmpdir(), 'adx-demo-'));
  const children: StartedChild[] = [];
  // Ctrl-C (or SIGTERM) ends the traffic early (with --duration 0, at all). The children run in
  // their own process groups, so a terminal's Ctrl-C reaches this process only: the exchange keeps
  // serving until the summary is read, and `finally` stops every child by pid. Caught from the
  // start, so an early Ctrl-C never leaves a child behind.
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  try {
    const sims = [
      { name: 'sim-alpha', args: ['--bid-probability', '0.9', '--cpm-min', '0.5', '--cpm-max', '4', '--latency-ms', '2-15', '--currency', 'USD'] },
      { name: 'sim-beta', args: ['--bid-probability', '0.7', '--cpm-min', '0.8', '--cpm-max', '3', '--latency-ms', '5-30', '--currency', 'EUR'] },
      { name: 'sim-gamma', args: ['--bid-probability', '0.6', '--cpm-min', '1', '--cpm-max', '6', '--latency-ms', '10-120', '--currency', 'USD'] },
    ];
    const simChildren = await Promise.all(
      sims.map((s) =>
        startCliChild(['dsp-sim', '--port', '0', '--name', s.name, '--seat', s.name, '--seed', String(options.seed), ...s.args], { readyPattern: /^http:\/\//, detached: true }),
      ),
    );
    children.push(...simChildren);
    const apiKey = 'adxk_demo_publisher_key_do_not_use_in_production';
    const adminKey = `admin-${Math.random().toString(36).slice(2)}`;
    const configPath = join(dir, 'adx-demo.json');
    await writeFile(
      configPath,
      JSON.stringify({
        seed: {
          publishers: [{ name: 'Demo Publisher', domain: 'localhost', domains: ['localhost', '127.0.0.1'], browser_access: true, api_key: apiKey }],
          demand_partners: sims.map((s, i) => ({ name: s.name, endpoint: simChildren[i]!.url, currency: i === 1 ? 'EUR' : 'USD', gzip: i === 1, timeout_ms: 1000 })),
        },
      }),
    );
    const port = await freePort();
    const exchange = await startCliChild(['serve'], {
      env: { ADX_CONFIG: configPath, DATABASE_URL: join(dir, 'adx.db'), PORT: String(port), HOST: '127.0.0.1', ADX_ADMIN_KEY: adminKey, ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'info' },
      readyPattern: /adx listening/,
      nodeArgs: options.exchangeNodeArgs,
      detached: true,
    });
    children.push(exchange);
    const base = exchange.url;
    process.stdout.write(
      `adx console: ${base}/console  (sign in with the admin key ${adminKey})\n` +
        (options.durationSeconds > 0 ? `traffic for ${options.durationSeconds} s; Ctrl-C ends it early\n` : 'traffic until Ctrl-C\n'),
    );

    // A webhook endpoint for auction.complete and billing.notice, served by our receiver CLI,
    // which verifies every delivery with the standardwebhooks package.
    const receiverPort = await freePort();
    const endpoint = await httpRequest(`${base}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/demo`, events: ['auction.complete', 'billing.notice'], description: 'demo receiver' }),
    });
    const { secret } = (await endpoint.body.json()) as { secret: string };
    const receiver = await startCliChild(['webhook-receiver', '--secret', secret, '--port', String(receiverPort)], { readyPattern: /listening/, detached: true });
    children.push(receiver);
    const pool = new Pool(base, { connections: options.concurrency + 2 });
    const totals: DemoTotals = {
      requests: 0,
      corpusRequests: 0,
      answered200: 0,
      answered204: 0,
      errors: 0,
      bids: 0,
      dealBids: 0,
      winNotices: 0,
      billingNotices: 0,
      revenueNet: 0,
      byType: {},
      latenciesMs: [],
      partners: [],
      webhooksDelivered: 0,
      webhooksVerified: 0,
      report: null,
      exchangeLatencyMs: null,
      p50Ms: 0,
      p99Ms: 0,
    };
    const rng = createRng(options.seed);
    const notices: Array<Promise<unknown>> = [];

    const fire = (url: string) => {
      notices.push(
        httpRequest(url)
          .then((r) => r.body.dump())
          .catch(() => undefined),
      );
    };
    const handleResponse = (response: BidResponse) => {
      for (const seat of response.seatbid ?? []) {
        for (const bid of seat.bid) {
          totals.bids++;
          if (typeof bid.dealid === 'string' && bid.dealid !== '') totals.dealBids++;
          const type = String((bid.ext?.prebid as { type?: unknown } | undefined)?.type ?? 'banner');
          const byType = (totals.byType[type] ??= { bids: 0, impressions: 0 });
          byType.bids++;
          if (rng() >= options.winShare) continue;
          const price = String(bid.price);
          if (bid.nurl) fire(bid.nurl.replace('${AUCTION_PRICE}', price));
          totals.winNotices++;
          if (rng() >= options.billShare) continue;
          totals.billingNotices++;
          byType.impressions++;
          totals.revenueNet += bid.price / 1000;
          const pixel = impressionUrlOf(type, bid.adm ?? '');
          if (rng() < 0.5 && bid.burl) fire(bid.burl.replace('${AUCTION_PRICE}', price));
          else if (pixel) fire(pixel);
        }
      }
    };
    const send = async (body: string, corpus: boolean) => {
      const started = performance.now();
      try {
        const res = await pool.request({
          method: 'POST',
          path: '/v1/openrtb/2.5/bidrequest',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body,
        });
        const text = await res.body.text();
        totals.latenciesMs.push(performance.now() - started);
        if (corpus) totals.corpusRequests++;
        else totals.requests++;
        if (res.statusCode === 200) {
          totals.answered200++;
          handleResponse(JSON.parse(text) as BidResponse);
        } else if (res.statusCode === 204) {
          totals.answered204++;
        } else {
          totals.errors++;
        }
      } catch {
        totals.errors++;
      }
    };

    for (const body of await readCorpus()) {
      if (interrupted) break;
      await send(body, true);
    }

    const endAt = options.durationSeconds > 0 ? performance.now() + options.durationSeconds * 1000 : Number.POSITIVE_INFINITY;
    let n = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (!interrupted && performance.now() < endAt) await send(JSON.stringify(generateBidRequest(rng, n++)), false);
      }),
    );

    await Promise.all(notices);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // partner notice calls and counter flush

    const sorted = totals.latenciesMs.slice().sort((a, b) => a - b);
    totals.p50Ms = percentile(sorted, 50);
    totals.p99Ms = percentile(sorted, 99);
    totals.partners = await partnerStats(base, adminKey, simChildren, sims.map((s) => s.name));
    await waitForWebhooks(receiver.url, totals);
    totals.exchangeLatencyMs = await exchangeLatency(base, adminKey);
    totals.report = await todaysReport(base, adminKey);
    await pool.close();
    return totals;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    process.removeListener('SIGINT', interrupt);
    process.removeListener('SIGTERM', interrupt);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The exchange's impression URL in served markup, as a player or renderer would find it: the
 * banner pixel's `src`, the VAST `<Impression>` carrying `/v1/notice/impression`, or the native
 * impression event tracker. Undefined when absent.
 */
function impressionUrlOf(type: string, adm: string): string | undefined {
  if (type === 'video' || type === 'audio') return /<Impression><!\[CDATA\[([^\]]*\/v1\/notice\/impression[^\]]*)\]\]><\/Impression>/.exec(adm)?.[1];
  if (type === 'native') {
    try {
      const trackers = (JSON.parse(adm) as { eventtrackers?: Array<{ url?: string }> }).eventtrackers ?? [];
      return trackers.map((t) => t.url).find((u) => typeof u === 'string' && u.includes('/v1/notice/impression'));
    } catch {
      return undefined;
    }
  }
  return /<img src="([^"]+\/v1\/notice\/impression[^"]*)"/.exec(adm)?.[1]?.replace(/&amp;/g, '&');
}

/** Per-partner figures from the exchange's /metrics and each simulator's /stats. */
async function partnerStats(base: string, adminKey: string, sims: StartedChild[], names: string[]): Promise<DemoTotals['partners']> {
  const metricsText = await (await httpRequest(`${base}/metrics`)).body.text();
  const list = (await (await httpRequest(`${base}/v1/demand-partners`, { headers: { authorization: `Bearer ${adminKey}` } })).body.json()) as {
    data: Array<{ id: string; name: string }>;
  };
  const metric = (name: string, labels: string): number => {
    let sum = 0;
    for (const line of metricsText.split('\n')) {
      if (line.startsWith(`${name}{`) && labels.split(',').every((l) => line.includes(l))) sum += Number(line.split(' ').pop());
    }
    return sum;
  };
  return Promise.all(
    names.map(async (name, i) => {
      const id = list.data.find((p) => p.name === name)?.id ?? '';
      let simStats: Record<string, number> = {};
      try {
        simStats = (await (await httpRequest(`${sims[i]!.url}/stats`)).body.json()) as Record<string, number>;
      } catch {
        simStats = {};
      }
      return {
        name,
        bids: metric('adx_adapter_bids_total', `adapter="${id}"`),
        timeouts: metric('adx_adapter_errors_total', `adapter="${id}",adapter_error="timeout"`),
        errors: metric('adx_adapter_errors_total', `adapter="${id}"`),
        winNoticesReceived: Number(simStats.wins ?? simStats.winNotices ?? 0),
        billingNoticesReceived: Number(simStats.billings ?? simStats.billingNotices ?? 0),
      };
    }),
  );
}

/** Waits (bounded) until the receiver's counts stop moving, then copies them into `totals`. */
async function waitForWebhooks(receiverUrl: string, totals: DemoTotals): Promise<void> {
  let last = -1;
  for (let i = 0; i < 50; i++) {
    try {
      const stats = (await (await httpRequest(`${receiverUrl}/stats`)).body.json()) as { received: number; verified: number; duplicates?: number };
      totals.webhooksDelivered = stats.received - (stats.duplicates ?? 0);
      totals.webhooksVerified = stats.verified;
      if (stats.received === last) return;
      last = stats.received;
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** p50/p99 latency as the exchange measured it (GET /v1/stats, since start), or null. */
async function exchangeLatency(base: string, adminKey: string): Promise<{ p50: number; p99: number } | null> {
  try {
    const res = await httpRequest(`${base}/v1/stats`, { headers: { authorization: `Bearer ${adminKey}` } });
    const body = (await res.body.json()) as { totals?: { latency_ms?: { p50: number; p99: number } } };
    return body.totals?.latency_ms ?? null;
  } catch {
    return null;
  }
}

/** Today's report.daily figures from the report API, or null when the API is not there. */
async function todaysReport(base: string, adminKey: string): Promise<Record<string, unknown> | null> {
  const date = new Date().toISOString().slice(0, 10);
  try {
    const res = await httpRequest(`${base}/v1/reports/daily?date=${date}`, { headers: { authorization: `Bearer ${adminKey}` } });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return null;
    }
    const body = (await res.body.json()) as { reports: Array<Record<string, unknown>> };
    return body.reports[0] ?? null;
  } catch {
    return null;
  }
}

/** Adds `demo` to the CLI. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run the exchange with simulated DSPs and traffic, then print a summary')
    .option('--duration <seconds>', 'seconds of generated traffic (0: until Ctrl-C); the console is served meanwhile', '10')
    .option('--concurrency <n>', 'concurrent bid requests', '8')
    .option('--seed <n>', 'random seed', '42')
    .option('--exchange-node-args <args>', 'extra node flags for the exchange process, space-separated (e.g. "--cpu-prof")')
    .action(async (flags: { duration: string; concurrency: string; seed: string; exchangeNodeArgs?: string }) => {
      const totals = await runDemo({
        durationSeconds: Number(flags.duration),
        concurrency: Number(flags.concurrency),
        winShare: 0.7,
        billShare: 0.85,
        seed: Number(flags.seed),
        exchangeNodeArgs: flags.exchangeNodeArgs ? flags.exchangeNodeArgs.split(' ').filter(Boolean) : undefined,
      });
      printSummary(totals, process.stdout);
      process.exit(totals.winNotices > 0 && totals.errors === 0 ? 0 : 1);
    });
}
