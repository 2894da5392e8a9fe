/**
 * The webhook dispatcher (DESIGN section 6; STYLE 10): claim due outbox rows -> sign -> POST ->
 * record the attempt -> reschedule, after svix's worker and graphile-worker's claim loop.
 *
 * - Claims: `claimDue` with this node's `owner` and a lease. Claimed messages beyond an
 *   endpoint's free slots wait in a bounded local queue (still claimed, no store round trip
 *   per attempt); endpoints whose queue is half full, and endpoints known to be disabled, are
 *   excluded from the next claim, and messages beyond the queue's bound are released at once.
 *   A queued message whose claim is close to its lease end is released rather than sent (another
 *   node may take it over). A slow endpoint therefore holds at most `perEndpointConcurrency`
 *   attempts and never delays the others: the loop starts attempts without awaiting them.
 * - Hand-off of new messages (`preclaim`, `handoff.ts`): a writer about to insert new outbox rows
 *   offers them first; those whose endpoint is cached, enabled and not busy are inserted already claimed by
 *   this node (same owner and lease as a claim) and start as soon as the insert has committed,
 *   with no claim statement (under steady load the claim was the store's costliest statement:
 *   one per group commit, ~240 us each on SQLite). The rest are inserted unclaimed and found by
 *   the next claim. While the last claim came back full or left busy endpoints out (a backlog
 *   in the store), nothing is taken this way, so a backlog drains in due order first, and a
 *   finished attempt asks for a claim only then. An endpoint's slot frees when its HTTP
 *   exchange ends, before the attempt's record is durable. A hand-off that never completes
 *   (the process died) is an ordinary claim that lapses with its lease.
 * - Attempts are recorded through a group commit (`recordAttempts`, one transaction per batch),
 *   or through `deps.recordAttempt` (the runtime's bid-path group commit, shared with auctions).
 * - Disabled endpoints: their messages stay `pending` with nothing recorded and are not claimed;
 *   they go out when the endpoint is enabled again. Deleted endpoints: the message is recorded
 *   as a failed attempt (the store deletes an endpoint's messages with it, so this is a race).
 * - Each attempt is recorded (`recordAttempt`), whatever its outcome (`outcome.ts`).
 * - Endpoint health: 2xx clears `failingSinceMs` and sets `lastSuccessAtMs` (written at most every
 *   `LAST_SUCCESS_WRITE_INTERVAL_MS` while healthy, to keep a write per delivery off the store);
 *   a failure starts `failingSinceMs`; failing for longer than `disableAfterFailingMs` without a
 *   success disables the endpoint (`failing`); a 410 disables it at once (`gone`).
 * - Time for schedules and records comes from the injected clock; the poll loop runs on real
 *   (unref'd) timers. Nothing is thrown out of the loop: a store error is logged and polling
 *   backs off until the store answers again.
 */
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../observability/logger.js';
import type { WebhookMetrics } from '../observability/webhook-metrics.js';
import { createGroupCommitter } from '../storage/group-commit.js';
import type { DeliveryAttemptRecord, OutboxAttemptUpdate, OutboxMessage, Store, WebhookEndpointRecord } from '../storage/ports.js';
import { buildAttemptRequest } from './attempt-request.js';
import { createWebhookAgent, deliverOnce, type AttemptResult } from './deliver.js';
import { createEndpointCache, type OpenedEndpoint } from './endpoint-cache.js';
import { endpointHealthChange } from './endpoint-health.js';
import { createHandoff, type PreclaimedMessages } from './handoff.js';
import { decideAttemptOutcome } from './outcome.js';
import type { SecretBox } from './secret-box.js';
import { createGuardedLookup, type ResolveAll } from './ssrf.js';

/** Runs deliveries in the background. */
export interface WebhookDispatcher {
  /**
   * Offers messages about to be inserted (see the module comment). Answers the rows to insert,
   * in the same order (taken ones carry `claimedBy` = this node and `claimExpiresAtMs`), and a
   * hand-off: call `committed()` once the insert is durable (the taken messages start, or are
   * released when the dispatcher stopped meanwhile) or `failed()` when it was not. `untaken`
   * counts the rows inserted unclaimed (call `notify()` for them). Never throws.
   */
  preclaim(messages: readonly OutboxMessage[]): PreclaimedMessages;
  /** Starts the poll loop. @throws Error when called after `stop()`. Calling it twice does nothing. */
  start(): void;
  /** Wake now (events were just enqueued). Cheap; coalesces; ignored while the store is failing. */
  notify(): void;
  /**
   * Stop claiming; wait for in-flight attempts up to `graceMs` (default 10 000), then abort the
   * rest and release the claims still held (`releaseMessages`), so another start or node can take
   * them at once. Attempts aborted this way are not recorded. Never rejects.
   */
  stop(graceMs?: number): Promise<void>;
  /** True between `start()` and `stop()`. */
  running(): boolean;
  /**
   * Forgets cached endpoints (after an admin change on this node: DESIGN section 7 wants it in
   * effect before the call answers); the next attempt reads the store.
   */
  endpointsChanged(): void;
}

/** Dependencies and settings of `createWebhookDispatcher`. Durations in ms. */
export interface WebhookDispatcherDeps {
  store: Pick<Store, 'outbox' | 'webhookEndpoints'>;
  /** Opens the sealed API keys and secrets of endpoints. */
  box: SecretBox;
  clock: Clock;
  log: Logger;
  metrics: WebhookMetrics;
  /** This node's claim owner id (unique per process). */
  owner: string;
  /** Retry schedule (`retry-schedule.ts`); the attempt count is its length. */
  retryScheduleMs: readonly number[];
  /** Allow http and private/loopback targets (demo, tests); otherwise the SSRF guard applies at connect time. */
  allowPrivateTargets: boolean;
  /** Poll interval when idle (default 250). */
  pollIntervalMs?: number;
  /** Most messages per claim (default max(50, 4 x perEndpointConcurrency): a claim refills an endpoint's queue in one round trip). */
  batchSize?: number;
  /** Claim lease (default 30 000; PostgreSQL takes over expired leases). */
  leaseMs?: number;
  /** Bound on one attempt, connect to answer excerpt (default 15 000). */
  attemptTimeoutMs?: number;
  /** Most attempts in flight per endpoint (default 4). */
  perEndpointConcurrency?: number;
  /** Disable an endpoint failing without a success for longer than this (default 5 days). */
  disableAfterFailingMs?: number;
  /** Uniform [0, 1) for retry jitter (default Math.random). */
  random?: () => number;
  /** Release every claim in the store before the first claim (SQLite: the only node; DESIGN section 6). Default false. */
  releaseAllClaimsAtStart?: boolean;
  /** How long the endpoint cache trusts what it loaded (default 1000). */
  endpointCacheTtlMs?: number;
  /** Resolver behind the connect-time SSRF guard (default the system's `dns.lookup`; tests stub names). */
  resolveAll?: ResolveAll;
  /**
   * Records one attempt durably (resolves once committed), as `OutboxStore.recordAttempt`. The
   * runtime passes its bid-path group commit, so attempts share the auctions' transactions.
   * Default: a group commit of the dispatcher's own (2 ms window) over `recordAttempts`. Must
   * stay open until `stop()` has resolved.
   */
  recordAttempt?: (attempt: DeliveryAttemptRecord, update: OutboxAttemptUpdate) => Promise<void>;
}

export { LAST_SUCCESS_WRITE_INTERVAL_MS } from './endpoint-health.js';
export type { PreclaimedMessages } from './handoff.js';
export { deliveryUrl } from './attempt-request.js';
/** Longest wait between polls while the store keeps failing, ms. */
const MAX_BACKOFF_MS = 10_000;
const DAY_MS = 24 * 60 * 60 * 1000;


/** Builds a dispatcher; nothing runs until `start()`. See the module comment for its rules. */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { store, clock, log, metrics, owner } = deps;
  const pollIntervalMs = deps.pollIntervalMs ?? 250;
  const leaseMs = deps.leaseMs ?? 30_000;
  const attemptTimeoutMs = deps.attemptTimeoutMs ?? 15_000;
  const cap = deps.perEndpointConcurrency ?? 4;
  const batchSize = deps.batchSize ?? Math.max(50, cap * 4);
  const disableAfterFailingMs = deps.disableAfterFailingMs ?? 5 * DAY_MS;
  const random = deps.random ?? Math.random;
  const schedule = [...deps.retryScheduleMs];

  const cache = createEndpointCache({ endpoints: store.webhookEndpoints, box: deps.box, clock, ttlMs: deps.endpointCacheTtlMs ?? 1000 });
  const agent = createWebhookAgent({
    lookup: deps.allowPrivateTargets ? undefined : createGuardedLookup(deps.resolveAll === undefined ? {} : { resolveAll: deps.resolveAll }),
    connectTimeoutMs: attemptTimeoutMs,
    connectionsPerOrigin: cap,
  });
  const shutdown = new AbortController();
  /** Attempts in flight per endpoint id. */
  const inFlight = new Map<string, number>();
  /** Message ids claimed by this node and neither recorded nor released yet. */
  const held = new Set<string>();
  /** Claimed messages waiting for a free slot of their endpoint, with when they were claimed. */
  const waiting = new Map<string, Array<{ message: OutboxMessage; claimedAtMs: number }>>();
  const maxWaiting = Math.max(cap * 8, batchSize);
  /** Attempts are written in batches: one transaction for all the attempts that ended together. */
  const recorder = createGroupCommitter<{ attempt: DeliveryAttemptRecord; update: OutboxAttemptUpdate }>({
    maxDelayMs: 2,
    write: (items) => store.outbox.recordAttempts(items),
  });
  const recordAttempt = deps.recordAttempt ?? ((attempt: DeliveryAttemptRecord, update: OutboxAttemptUpdate) => recorder.submit({ attempt, update }));
  const tasks = new Set<Promise<void>>();

  let state: 'idle' | 'running' | 'stopped' = 'idle';
  let timer: NodeJS.Timeout | undefined;
  let timerImmediate = false;
  let currentTick: Promise<void> | null = null;
  let wakeDuringTick = false;
  let storeFailures = 0;
  let claimsReleased = deps.releaseAllClaimsAtStart !== true;
  /** The last claim found nothing outside endpoints excluded as busy (see claimAndStart). */
  let idleWithExclusions = false;
  /** The last claim came back full or left busy endpoints out: due messages may wait in the store (no hand-off meanwhile). */
  let backlogInStore = true;

  /** Starts a committed, pre-claimed message now, or queues it behind its endpoint's attempts in flight. */
  function startOrQueue(message: OutboxMessage, claimedAtMs: number): void {
    if ((inFlight.get(message.endpointId) ?? 0) < cap) {
      startAttempt(message);
      return;
    }
    const queue = waiting.get(message.endpointId) ?? [];
    queue.push({ message, claimedAtMs });
    waiting.set(message.endpointId, queue);
    held.add(message.id);
  }

  const handoff = createHandoff({
    owner,
    leaseMs,
    clock,
    log,
    // Taken only while running on a healthy store with no backlog, for a cached, enabled endpoint
    // whose attempts in flight, queued and reserved stay under its slots plus half its queue.
    canTake(message, reservedForEndpoint) {
      if (state !== 'running' || storeFailures > 0 || !claimsReleased || backlogInStore) return false;
      const endpoint = cache.peek(message.endpointId);
      if (endpoint === undefined || !endpoint.record.enabled) return false;
      const load = (inFlight.get(message.endpointId) ?? 0) + (waiting.get(message.endpointId)?.length ?? 0) + reservedForEndpoint;
      return load < cap + maxWaiting / 2;
    },
    running: () => state === 'running',
    start: startOrQueue,
    release: (ids) => store.outbox.releaseMessages(owner, ids),
  });

  function scheduleTick(delayMs: number): void {
    if (state !== 'running') return;
    if (timer !== undefined) {
      if (timerImmediate && delayMs === 0) return;
      clearTimeout(timer);
    }
    timerImmediate = delayMs === 0;
    timer = setTimeout(() => {
      timer = undefined;
      currentTick = tick().finally(() => {
        currentTick = null;
      });
    }, delayMs);
    timer.unref();
  }

  async function tick(): Promise<void> {
    wakeDuringTick = false;
    let nextDelayMs = pollIntervalMs;
    try {
      const more = await claimAndStart();
      storeFailures = 0;
      if (more) nextDelayMs = 0;
    } catch (error) {
      storeFailures += 1;
      nextDelayMs = Math.min(MAX_BACKOFF_MS, pollIntervalMs * 2 ** Math.min(storeFailures, 10));
      log.error({ err: error, failures: storeFailures, retryInMs: nextDelayMs }, 'webhook dispatcher: claiming failed');
    }
    scheduleTick(wakeDuringTick && storeFailures === 0 ? 0 : nextDelayMs);
  }

  /** One claim round; answers true when more due messages may be waiting. */
  async function claimAndStart(): Promise<boolean> {
    if (!claimsReleased) {
      const released = await store.outbox.releaseClaims();
      claimsReleased = true;
      if (released > 0) log.info({ released }, 'webhook dispatcher: released claims left from a previous run');
    }
    const excluded = new Set(await cache.disabledIds());
    let busyExcluded = false;
    for (const [endpointId, queue] of waiting) {
      if (queue.length > maxWaiting / 2) {
        excluded.add(endpointId);
        busyExcluded = true;
      }
    }
    const nowMs = clock.now();
    const claimed = await store.outbox.claimDue({ owner, nowMs, limit: batchSize, leaseMs, excludeEndpointIds: [...excluded] });
    // Nothing due outside the excluded (busy) endpoints: a claim per new event would only scan
    // their backlog again, so new-event wake-ups are ignored until a queue runs low or the poll.
    idleWithExclusions = claimed.length === 0 && excluded.size > 0;
    // A full claim, or busy endpoints left out of it, may leave due messages in the store.
    backlogInStore = claimed.length >= batchSize || busyExcluded;
    if (claimed.length === 0) return false;
    const extra: string[] = [];
    for (const message of claimed) {
      const count = inFlight.get(message.endpointId) ?? 0;
      if (state !== 'running') {
        extra.push(message.id);
      } else if (count < cap) {
        startAttempt(message);
      } else {
        const queue = waiting.get(message.endpointId) ?? [];
        if (queue.length >= maxWaiting) {
          extra.push(message.id);
          continue;
        }
        queue.push({ message, claimedAtMs: nowMs });
        waiting.set(message.endpointId, queue);
        held.add(message.id);
      }
    }
    if (extra.length > 0) await store.outbox.releaseMessages(owner, extra);
    return claimed.length >= batchSize || extra.length > 0;
  }

  /** Starts one attempt now (its endpoint has a free slot). */
  function startAttempt(message: OutboxMessage): void {
    inFlight.set(message.endpointId, (inFlight.get(message.endpointId) ?? 0) + 1);
    held.add(message.id);
    let slotFreed = false;
    // The endpoint's slot is free once its HTTP exchange is over, before the attempt's record
    // is durable (the message stays claimed until then, so nobody else sends it meanwhile).
    const freeSlot = () => {
      if (slotFreed) return;
      slotFreed = true;
      const left = (inFlight.get(message.endpointId) ?? 1) - 1;
      if (left <= 0) inFlight.delete(message.endpointId);
      else inFlight.set(message.endpointId, left);
      if (state !== 'running') return;
      startNextWaiting(message.endpointId);
      // Claim more only when the store holds a backlog and this endpoint's queue runs low:
      // while it is half full the endpoint is excluded from claims, and a claim per finished
      // attempt would scan its backlog for nothing. Without a backlog new messages arrive by
      // hand-off or wake-up, and retries coming due are found by the poll.
      if (backlogInStore && (waiting.get(message.endpointId)?.length ?? 0) <= maxWaiting / 2) {
        idleWithExclusions = false;
        wake();
      }
    };
    const task: Promise<void> = runAttempt(message, freeSlot)
      .catch((error: unknown) => log.error({ err: error, messageId: message.id }, 'webhook dispatcher: attempt could not be recorded'))
      .finally(() => {
        freeSlot();
        // Stopping: stop() releases what is still held. Running: an unrecorded claim lapses with its lease.
        if (state === 'running') held.delete(message.id);
        tasks.delete(task);
      });
    tasks.add(task);
  }

  /** Starts the endpoint's next queued message; one whose claim nears its lease end is released instead. */
  function startNextWaiting(endpointId: string): void {
    const queue = waiting.get(endpointId);
    const stale: string[] = [];
    while (queue && queue.length > 0 && (inFlight.get(endpointId) ?? 0) < cap) {
      const next = queue.shift()!;
      if (clock.now() - next.claimedAtMs > leaseMs * 0.8) {
        stale.push(next.message.id);
        held.delete(next.message.id);
        continue;
      }
      startAttempt(next.message);
    }
    if (queue && queue.length === 0) waiting.delete(endpointId);
    if (stale.length > 0) {
      store.outbox.releaseMessages(owner, stale).catch((error: unknown) => log.error({ err: error }, 'webhook dispatcher: stale claims could not be released'));
    }
  }

  function wake(): void {
    if (state !== 'running' || storeFailures > 0) return;
    if (currentTick !== null) wakeDuringTick = true;
    else scheduleTick(0);
  }

  /** Sends one attempt and records it; calls `sent` once the HTTP exchange is over (before the record). */
  async function runAttempt(message: OutboxMessage, sent: () => void): Promise<void> {
    const endpoint = await cache.get(message.endpointId);
    const startedAtMs = clock.now();
    const attemptNo = message.attempts + 1;
    if (endpoint === undefined) {
      const error = 'endpoint deleted';
      await recordAttempt(
        { messageId: message.id, attempt: attemptNo, startedAtMs, durationMs: 0, statusCode: null, error, responseExcerpt: null, nextAttemptAtMs: null },
        { status: 'failed', attempts: attemptNo, nextAttemptAtMs: message.nextAttemptAtMs, deliveredAtMs: null, lastError: error },
      );
      held.delete(message.id);
      metrics.deliveries.inc({ outcome: 'failed' });
      return;
    }
    if (!endpoint.record.enabled) {
      await store.outbox.releaseMessages(owner, [message.id]);
      held.delete(message.id);
      return;
    }

    const startedMono = clock.monotonicMs();
    const result = await send(message, endpoint, startedAtMs);
    sent();
    const durationMs = Math.max(0, Math.round(clock.monotonicMs() - startedMono));
    if (result.statusCode === null && shutdown.signal.aborted) return; // stop(): the claim is released, nothing recorded
    const endedAtMs = clock.now();
    const decision = decideAttemptOutcome({
      result,
      attemptNo,
      endedAtMs,
      previousNextAttemptAtMs: message.nextAttemptAtMs,
      scheduleMs: schedule,
      random,
    });
    await recordAttempt(
      {
        messageId: message.id,
        attempt: attemptNo,
        startedAtMs,
        durationMs,
        statusCode: result.statusCode,
        error: decision.error,
        responseExcerpt: result.excerpt,
        nextAttemptAtMs: decision.nextAttemptAtMs,
      },
      decision.update,
    );
    held.delete(message.id);
    metrics.deliveries.inc({ outcome: decision.outcome });
    metrics.attemptSeconds.observe(durationMs / 1000);
    if (log.isLevelEnabled('debug')) {
      log.debug({ messageId: message.id, endpointId: message.endpointId, attempt: attemptNo, status: result.statusCode, outcome: decision.outcome }, 'webhook attempt');
    }
    try {
      await updateEndpointHealth(endpoint.record, decision.outcome, endedAtMs);
    } catch (error) {
      log.error({ err: error, endpointId: endpoint.record.id }, 'webhook dispatcher: endpoint health could not be saved');
    }
  }

  /** Signs and POSTs one attempt; a URL the SSRF rules refuse is a failed attempt without a connection. */
  async function send(message: OutboxMessage, endpoint: OpenedEndpoint, startedAtMs: number): Promise<AttemptResult> {
    const request = buildAttemptRequest(message, endpoint, startedAtMs, deps.allowPrivateTargets);
    if ('refused' in request) return { statusCode: null, retryAfter: undefined, excerpt: null, error: `refused: ${request.refused}` };
    return deliverOnce({ agent, url: request.url, body: message.body, timeoutMs: attemptTimeoutMs, signal: shutdown.signal, headers: request.headers });
  }

  async function updateEndpointHealth(record: WebhookEndpointRecord, outcome: string, nowMs: number): Promise<void> {
    const change = endpointHealthChange(record, outcome, nowMs, disableAfterFailingMs);
    if (!change) return;
    if (change.disabled === 'gone') log.warn({ endpointId: record.id }, 'webhook endpoint answered 410 Gone: disabled');
    if (change.disabled === 'failing') {
      log.warn({ endpointId: record.id, failingSinceMs: record.failingSinceMs }, 'webhook endpoint failing without a success for too long: disabled');
    }
    const updated = await store.webhookEndpoints.update(record.id, change.patch);
    if (updated !== undefined) cache.put(updated);
  }

  return {
    preclaim: (messages) => handoff.preclaim(messages),
    start() {
      if (state === 'stopped') throw new Error('webhook dispatcher was stopped; create a new one');
      if (state === 'running') return;
      state = 'running';
      scheduleTick(0);
    },
    notify() {
      if (!idleWithExclusions) wake();
    },
    async stop(graceMs = 10_000) {
      if (state === 'stopped') return;
      const wasRunning = state === 'running';
      state = 'stopped';
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (wasRunning) {
        if (currentTick !== null) await currentTick;
        waiting.clear(); // their ids stay in `held` and are released below
        if (tasks.size > 0) await settleWithin([...tasks], graceMs);
        if (tasks.size > 0) {
          shutdown.abort();
          await settleWithin([...tasks], 1_000);
        }
        if (held.size > 0) {
          try {
            await store.outbox.releaseMessages(owner, [...held]);
            held.clear();
          } catch (error) {
            log.error({ err: error, messages: held.size }, 'webhook dispatcher: claims could not be released at stop (they lapse with their lease)');
          }
        }
      }
      await recorder.close().catch(() => undefined);
      await agent.destroy().catch(() => undefined);
    },
    running: () => state === 'running',
    endpointsChanged() {
      cache.invalidate();
      idleWithExclusions = false;
      wake();
    },
  };
}

/** Waits for the promises to settle, at most `ms` (real time). */
async function settleWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  let handle: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      handle = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(handle);
}
