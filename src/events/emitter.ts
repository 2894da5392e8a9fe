/**
 * The event emitter: turns one event payload into the outbox rows (`OutboxMessage`, one per
 * subscribed endpoint) that the caller writes in the same transaction as the state change that
 * caused the event (DESIGN section 6: `store.writeAuction`, `store.notices.record`, ...).
 *
 * `messagesFor` is synchronous and runs on the bid path, so it reads an in-memory list of the
 * endpoints, loaded by `refresh()` at start, every `refreshIntervalMs` (so a change made on
 * another node is seen within DESIGN section 7's 2 s) and on `invalidate()` after an admin change
 * on this node. The body is serialized once per event and shared by every row (Standard Webhooks:
 * the stored bytes are signed and sent as they are).
 *
 * Routing rules:
 * - an endpoint receives an event when it is enabled, its `events` list includes the kind (an
 *   empty list means every kind), and its scope (`publisherId`) is null or equals the event's
 *   publisher; an exchange-wide event (publisher null) goes only to endpoints with null scope;
 * - `webhook.test` goes only to `options.onlyEndpointId`, whatever that endpoint subscribes to
 *   and whatever its scope, and never to a disabled endpoint (the admin API answers 409 first);
 * - with `onlyEndpointId`, any other kind goes to that endpoint alone if the rules above let it.
 */
import type { Clock } from '../domain/clock.js';
import type { IdGenerator } from '../domain/ids.js';
import type { Logger } from '../observability/logger.js';
import type { OutboxMessage, Store, WebhookEndpointRecord } from '../storage/ports.js';
import type { EventPayload } from './types.js';

/** What the emitter needs. */
export interface EventEmitterDeps {
  store: Pick<Store, 'webhookEndpoints'>;
  /** Mints message ids (`msg_...`, the Standard Webhooks `webhook-id`). */
  ids: IdGenerator;
  clock: Clock;
  /** How often the endpoint list is reloaded from the store, ms; default 1000. */
  refreshIntervalMs?: number;
  /** Failed periodic reloads are logged at warn (the previous list stays in use). */
  log: Pick<Logger, 'warn'>;
}

/** Options of {@link EventEmitter.messagesFor}. */
export interface MessagesForOptions {
  /** Send to this endpoint only (required for `webhook.test`, which goes nowhere without it). */
  onlyEndpointId?: string;
}

/** Builds outbox rows for events from the cached endpoint list. */
export interface EventEmitter {
  /**
   * Reloads the endpoint list from the store. Concurrent calls are serialized; the promise
   * settles once a load that started after the call has finished.
   * @throws the store's error; the previous list stays in use.
   */
  refresh(): Promise<void>;
  /** Starts the periodic reload (timer unref'd) and triggers one now; `await refresh()` first when the list must be loaded before traffic. */
  start(): void;
  /** Stops the periodic reload. */
  stop(): void;
  /** Reloads now, in the background (after an admin change on this node); failures are logged. */
  invalidate(): void;
  /**
   * The outbox rows for `payload`: one per endpoint that receives it (rules in the module doc),
   * each `pending`, 0 attempts, due now, unclaimed, with a fresh `msg_` id and the same body
   * (`JSON.stringify(payload)`, computed once). An empty array when nobody subscribes.
   * @param publisherId the publisher the event is about, or null for an exchange-wide event.
   */
  messagesFor(payload: EventPayload, publisherId: string | null, options?: MessagesForOptions): OutboxMessage[];
  /**
   * True when at least one enabled endpoint receives `kind` events about `publisherId` (same rules
   * as `messagesFor`): lets the bid path skip building payloads nobody subscribed to.
   */
  wants(kind: EventPayload['event'], publisherId: string | null): boolean;
}

/** An endpoint as routing needs it. */
interface Route {
  id: string;
  enabled: boolean;
  /** Subscribed kinds, or null for every kind. */
  kinds: ReadonlySet<string> | null;
  publisherId: string | null;
}

function toRoute(endpoint: WebhookEndpointRecord): Route {
  return {
    id: endpoint.id,
    enabled: endpoint.enabled,
    kinds: endpoint.events.length === 0 ? null : new Set(endpoint.events),
    publisherId: endpoint.publisherId,
  };
}

/** Default of {@link EventEmitterDeps.refreshIntervalMs}, ms (well inside DESIGN's 2 s). */
export const DEFAULT_ENDPOINT_REFRESH_MS = 1000;

/**
 * Builds the emitter. Holds no timer until `start()`; importing or building it does nothing.
 * @throws Error when `refreshIntervalMs` is not a positive finite number.
 */
export function createEventEmitter(deps: EventEmitterDeps): EventEmitter {
  const { store, ids, clock, log } = deps;
  const refreshIntervalMs = deps.refreshIntervalMs ?? DEFAULT_ENDPOINT_REFRESH_MS;
  if (!(Number.isFinite(refreshIntervalMs) && refreshIntervalMs > 0)) throw new Error('refreshIntervalMs must be a positive number');

  let routes: Route[] = [];
  let timer: NodeJS.Timeout | undefined;
  // Serialized loads: `tail` is the last load in the chain; `queued` a load not started yet,
  // shared by every caller that arrives before it starts (so bursts cost one query).
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;

  const load = async (): Promise<void> => {
    const endpoints = await store.webhookEndpoints.list();
    routes = endpoints.map(toRoute);
  };

  const refresh = (): Promise<void> => {
    if (queued) return queued;
    const next = tail.then(() => {
      queued = undefined;
      return load();
    });
    queued = next;
    tail = next.catch(() => undefined);
    return next;
  };

  const refreshInBackground = (): void => {
    refresh().catch((error: unknown) => log.warn({ err: error }, 'webhook endpoint list reload failed; keeping the previous list'));
  };

  const message = (id: string, endpointId: string, eventKind: string, body: string, publisherId: string | null, nowMs: number): OutboxMessage => ({
    id,
    endpointId,
    eventKind,
    body,
    publisherId,
    status: 'pending',
    attempts: 0,
    nextAttemptAtMs: nowMs,
    createdAtMs: nowMs,
    claimedBy: null,
    claimExpiresAtMs: null,
    deliveredAtMs: null,
    lastError: null,
  });

  return {
    refresh,

    start() {
      if (timer) return;
      timer = setInterval(refreshInBackground, refreshIntervalMs);
      timer.unref();
      refreshInBackground();
    },

    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },

    invalidate: refreshInBackground,

    messagesFor(payload, publisherId, options) {
      const kind = payload.event;
      const only = options?.onlyEndpointId;
      const isTest = kind === 'webhook.test';
      if (isTest && only === undefined) return [];
      let out: OutboxMessage[] | undefined;
      let body = '';
      let nowMs = 0;
      for (let i = 0; i < routes.length; i++) {
        const route = routes[i]!;
        if (!route.enabled) continue;
        if (only !== undefined && route.id !== only) continue;
        if (!isTest) {
          if (route.kinds !== null && !route.kinds.has(kind)) continue;
          if (route.publisherId !== null && route.publisherId !== publisherId) continue;
        }
        if (out === undefined) {
          out = [];
          body = JSON.stringify(payload);
          nowMs = clock.now();
        }
        out.push(message(ids.next('msg'), route.id, kind, body, publisherId, nowMs));
      }
      return out ?? [];
    },
    wants(kind, publisherId) {
      for (let i = 0; i < routes.length; i++) {
        const route = routes[i]!;
        if (!route.enabled) continue;
        if (route.kinds !== null && !route.kinds.has(kind)) continue;
        if (route.publisherId !== null && route.publisherId !== publisherId) continue;
        return true;
      }
      return false;
    },
  };
}
