/** The demo's summary table. */

/** Figures the demo collects. Money is decimal USD-ish amounts as answered (response currency). */
export interface DemoTotals {
  requests: number;
  corpusRequests: number;
  answered200: number;
  answered204: number;
  errors: number;
  bids: number;
  /** Bids answered with a `dealid`: auctions a deal bid won. */
  dealBids: number;
  winNotices: number;
  billingNotices: number;
  /** Net revenue of billed impressions: sum of price / 1000. */
  revenueNet: number;
  /** Per media type (`ext.prebid.type` of the bids answered): bids, and impressions fired (billing notice or the type's impression tracker). */
  byType: Record<string, { bids: number; impressions: number }>;
  latenciesMs: number[];
  p50Ms: number;
  p99Ms: number;
  partners: Array<{ name: string; bids: number; timeouts: number; errors: number; winNoticesReceived: number; billingNoticesReceived: number }>;
  webhooksDelivered: number;
  webhooksVerified: number;
  /** Latency as the exchange measured it, request arrival to answer (GET /v1/stats), or null. */
  exchangeLatencyMs: { p50: number; p99: number } | null;
  /** The report.daily the exchange would send for today (GET /v1/reports/daily), or null. */
  report: Record<string, unknown> | null;
}

function row(cells: Array<string | number>, widths: number[]): string {
  return cells.map((c, i) => String(c).padEnd(widths[i] ?? 12)).join('  ').trimEnd();
}

/** Prints the summary to `out`. */
export function printSummary(t: DemoTotals, out: NodeJS.WritableStream): void {
  const lines = [
    '',
    'adx demo summary',
    '----------------',
    row(['bid requests (generated)', t.requests], [32]),
    row(['bid requests (corpus)', t.corpusRequests], [32]),
    row(['answered 200 / 204 / errors', `${t.answered200} / ${t.answered204} / ${t.errors}`], [32]),
    row(['bids', t.bids], [32]),
    row(['  of which deal bids (pmp)', t.dealBids], [32]),
    row(['wins (win notices sent)', t.winNotices], [32]),
    row(['impressions (billing/pixel)', t.billingNotices], [32]),
    row(['revenue, net (bid prices / 1000)', t.revenueNet.toFixed(4)], [32]),
    row(['latency p50 / p99, client (ms)', `${t.p50Ms.toFixed(2)} / ${t.p99Ms.toFixed(2)}`], [32]),
    row([
      'latency p50 / p99, exchange (ms)',
      t.exchangeLatencyMs ? `${t.exchangeLatencyMs.p50.toFixed(2)} / ${t.exchangeLatencyMs.p99.toFixed(2)}` : 'n/a',
    ], [32]),
    row(['webhooks delivered / verified', `${t.webhooksDelivered} / ${t.webhooksVerified}`], [32]),
    '',
    row(['media type', 'bids', 'impressions'], [12, 8, 11]),
    ...['banner', 'video', 'audio', 'native'].map((type) => row([type, t.byType[type]?.bids ?? 0, t.byType[type]?.impressions ?? 0], [12, 8, 11])),
    '',
    row(['partner', 'bids', 'timeouts', 'errors', 'nurl hits', 'burl hits'], [12, 8, 9, 7, 10, 10]),
    ...t.partners.map((p) => row([p.name, p.bids, p.timeouts, p.errors, p.winNoticesReceived, p.billingNoticesReceived], [12, 8, 9, 7, 10, 10])),
    '',
  ];
  if (t.report) {
    lines.push('report.daily for today (what the exchange would send)');
    for (const [key, value] of Object.entries(t.report)) lines.push(row([`  ${key}`, String(value)], [32]));
    lines.push('');
  }
  out.write(`${lines.join('\n')}\n`);
}
