/**
 * Open-loop load for the chaos run, against 127.0.0.1 only: requests go out at evenly spaced
 * instants over an undici Pool, whatever the answers do (no coordinated omission), and every
 * outcome is classified: 200, 204, 4xx, 5xx, dropped (the connection failed or closed without an
 * answer), and late (answered after the request's tmax + `lateSlackMs`).
 *
 * Latency is counted from the request's scheduled instant (`measureFrom: 'scheduled'`, for
 * unloaded paced rows, so a stall of the server shows as lateness), or from the moment it was
 * handed to a free connection (`'sent'`, for the overload row, where the generator's own queue is
 * not the exchange's doing). At most `maxOutstanding` requests are in flight: a request due when
 * that many are outstanding is not sent and counted as `skipped` (client-side back-pressure).
 *
 * 200 answers are parsed as OpenRTB 2.5 BidResponses (section 4.2) and their bids kept
 * (exchange bid id, nurl, price, and the partner bid id that `chaos/dsp.mjs` writes into adm).
 * Importing this module does nothing.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';

/**
 * One request to send.
 * @typedef {object} PlannedRequest
 * @property {string} kind label for per-kind tallies (`good`, `bad-json`, ...)
 * @property {string} [path] default `/v1/openrtb/2.5/bidrequest`
 * @property {Record<string, string>} headers
 * @property {string | Buffer} body
 * @property {number} tmaxMs the request's tmax (or the exchange default when it has none), ms
 */

/**
 * A bid from a 200 answer.
 * @typedef {object} AnsweredBid
 * @property {string} bidId the exchange's bid id (`auction.complete`'s `bid_id`)
 * @property {string} nurl the exchange win notice URL, `${AUCTION_PRICE}` unsubstituted
 * @property {number} price CPM in the response currency
 * @property {string} seat
 * @property {string | undefined} partnerBidId from `<!--pbid:...-->` in adm
 */

/**
 * Outcomes per kind of request.
 * @typedef {{ sent: number, s200: number, s204: number, s4xx: number, s5xx: number, other: number, dropped: number, late: number }} KindTally
 */

/**
 * Everything one load run measured.
 * @typedef {object} LoadTally
 * @property {number} sent requests handed to a connection
 * @property {number} skipped due requests not sent because `maxOutstanding` were in flight
 * @property {number} s200
 * @property {number} s204
 * @property {number} s4xx
 * @property {number} s5xx
 * @property {number} other statuses outside those classes (1xx/3xx)
 * @property {number} dropped requests without an answer (reset, closed, refused, timeout)
 * @property {Record<string, number>} dropReasons dropped requests per error code
 * @property {number} late answers after tmax + slack
 * @property {Record<string, number>} lateByClass late answers per class (`200`, `204`, `4xx`, `5xx`)
 * @property {number[]} lateAtSec when the late requests were scheduled, s from the run's start
 * @property {number} maxLatencyMs
 * @property {number} harnessLagMaxMs the generator's own event-loop delay, max over the run (ms): lateness it adds to every measurement
 * @property {Record<string, KindTally>} byKind
 * @property {AnsweredBid[]} bids
 * @property {string[]} samples a few unexpected outcomes (5xx bodies, drop errors) for the note
 */

/** @returns {KindTally} */
function emptyKind() {
  return { sent: 0, s200: 0, s204: 0, s4xx: 0, s5xx: 0, other: 0, dropped: 0, late: 0 };
}

/** @param {number} status @returns {'s200' | 's204' | 's4xx' | 's5xx' | 'other'} */
function classOf(status) {
  if (status === 200) return 's200';
  if (status === 204) return 's204';
  if (status >= 400 && status < 500) return 's4xx';
  if (status >= 500) return 's5xx';
  return 'other';
}

/**
 * Bids of a BidResponse body (empty when it is not one).
 * @param {string} text
 * @returns {AnsweredBid[]}
 */
function bidsOf(text) {
  /** @type {AnsweredBid[]} */
  const out = [];
  try {
    const response = JSON.parse(text);
    for (const seatbid of response.seatbid ?? []) {
      for (const bid of seatbid.bid ?? []) {
        out.push({ bidId: bid.id, nurl: bid.nurl, price: bid.price, seat: seatbid.seat, partnerBidId: /pbid:(.+?)-->/.exec(bid.adm ?? '')?.[1] });
      }
    }
  } catch {
    // not JSON: counted by status only
  }
  return out;
}

/**
 * Starts sending `ratePerSec` requests per second for `durationSec` (or until `stop()`).
 * @param {{ origin: string, ratePerSec: number, durationSec: number, next: (i: number) => PlannedRequest, maxOutstanding?: number, connections?: number, lateSlackMs?: number, measureFrom?: 'scheduled' | 'sent', timeoutMs?: number }} o
 * @returns {{ tally: LoadTally, stop: () => void, done: Promise<LoadTally> }}
 *   `stop()` sends nothing more; `done` resolves once every request sent has an outcome.
 */
export function startLoad(o) {
  const connections = o.connections ?? 64;
  const maxOutstanding = o.maxOutstanding ?? connections;
  const slackMs = o.lateSlackMs ?? 20;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const pool = new Pool(o.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, connect: { timeout: 2000 } });
  /** @type {LoadTally} */
  const tally = { sent: 0, skipped: 0, s200: 0, s204: 0, s4xx: 0, s5xx: 0, other: 0, dropped: 0, dropReasons: {}, late: 0, lateByClass: {}, lateAtSec: [], maxLatencyMs: 0, harnessLagMaxMs: 0, byKind: {}, bids: [], samples: [] };
  let stopped = false;
  let outstanding = 0;
  let runStarted = performance.now();
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set();

  /** @param {PlannedRequest} r @param {number} scheduledAt */
  const send = async (r, scheduledAt) => {
    const sentAt = performance.now();
    const kind = (tally.byKind[r.kind] ??= emptyKind());
    kind.sent++;
    tally.sent++;
    try {
      const res = await pool.request({ method: 'POST', path: r.path ?? '/v1/openrtb/2.5/bidrequest', headers: r.headers, body: r.body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const text = await res.body.text();
      const ms = performance.now() - (o.measureFrom === 'sent' ? sentAt : scheduledAt);
      const cls = classOf(res.statusCode);
      tally[cls]++;
      kind[cls]++;
      if (ms > tally.maxLatencyMs) tally.maxLatencyMs = ms;
      if (ms > r.tmaxMs + slackMs) {
        tally.late++;
        kind.late++;
        const key = cls === 's200' ? '200' : cls === 's204' ? '204' : cls.slice(1);
        tally.lateByClass[key] = (tally.lateByClass[key] ?? 0) + 1;
        tally.lateAtSec.push((scheduledAt - runStarted) / 1000);
      }
      if (res.statusCode === 200) for (const bid of bidsOf(text)) tally.bids.push(bid);
      if (cls === 's5xx' && tally.samples.length < 5) tally.samples.push(`${r.kind} -> ${res.statusCode} ${text.slice(0, 120)}`);
    } catch (error) {
      const code = /** @type {any} */ (error)?.code ?? /** @type {any} */ (error)?.name ?? 'error';
      tally.dropped++;
      kind.dropped++;
      tally.dropReasons[code] = (tally.dropReasons[code] ?? 0) + 1;
      if (tally.samples.length < 5) tally.samples.push(`${r.kind} -> dropped ${code}`);
    }
  };

  const run = async () => {
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const started = performance.now();
    runStarted = started;
    const intervalMs = 1000 / o.ratePerSec;
    const total = Math.round(o.durationSec * o.ratePerSec);
    let i = 0;
    while (!stopped && i < total) {
      const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
      for (; i < due && !stopped; i++) {
        if (outstanding >= maxOutstanding) {
          tally.skipped++;
          continue;
        }
        outstanding++;
        const p = send(o.next(i), started + i * intervalMs).finally(() => {
          outstanding--;
          inFlight.delete(p);
        });
        inFlight.add(p);
      }
      const wait = started + i * intervalMs - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    }
    await Promise.all([...inFlight]);
    lag.disable();
    tally.harnessLagMaxMs = lag.max / 1e6;
    await pool.destroy().catch(() => undefined);
    return tally;
  };

  return {
    tally,
    stop: () => void (stopped = true),
    done: run(),
  };
}
