/**
 * The webhook endpoint service behind `/v1/webhook-endpoints` (DESIGN sections 6 and 7):
 * validation (SSRF rule included), secret and API key minting, encryption at rest, secret
 * rotation, test events, the delivery log, replay and recovery. No HTTP in here.
 *
 * Choices where DESIGN is silent:
 * - `api_key` (sent to the endpoint as `Authorization: Bearer`) is generated when absent
 *   (`adxw_` + 32 random bytes base64url) and, like the secret, answered only by `create`; both
 *   are stored sealed (`webhooks/secret-box.ts`). A given key must be visible ASCII (it travels in
 *   a header), at most 512 characters.
 * - `events` may be empty (= every kind); duplicates are dropped; unknown kinds are a 400 naming
 *   `events[i]`. `publisher_id` must name an existing publisher (400 naming `publisher_id`).
 * - Rotation keeps ONE previous secret: rotating again within 24 h drops the older one.
 * - `test` refuses a disabled endpoint with 409 `conflict` (enable it first). `replay` and
 *   `recover` accept one: the messages wait, pending, and go out once it is enabled again (the
 *   dispatcher does not claim a disabled endpoint's messages).
 * - Re-enabling (`enabled: true` on a disabled endpoint) clears `disabled_reason` and the failure
 *   run (`failingSinceMs`); disabling by hand leaves `disabled_reason` null.
 * - Unknown input fields are ignored; a field given as `undefined` counts as absent.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { AdxError } from '../domain/errors.js';
import type { IdGenerator } from '../domain/ids.js';
import type { EventEmitter } from '../events/emitter.js';
import { webhookTestPayload } from '../events/payloads.js';
import { EVENT_KINDS } from '../events/types.js';
import type { DeliveryAttemptRecord, OutboxMessage, OutboxStatus, Store, WebhookEndpointRecord } from '../storage/ports.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import { generateWebhookSecret } from '../webhooks/signer.js';
import { checkWebhookTarget, type ResolveAll } from '../webhooks/ssrf.js';
import { FieldErrors, checkBoolean, requireObject } from './field-checks.js';

/** Fields a client sets on an endpoint (snake_case, as in the admin API's JSON). */
export interface WebhookEndpointInput {
  /** Base URL; deliveries go to `<url>/webhooks/<kind>`. https and a public host unless private targets are allowed. */
  url: string;
  /** Subscribed kinds (`EVENT_KINDS`); default [] = every kind. */
  events?: string[];
  /** Bearer key sent to the endpoint; generated when absent. */
  api_key?: string;
  /** Scope: only this publisher's events; null (default) = all. */
  publisher_id?: string | null;
  /** Default true. */
  enabled?: boolean;
  /** Free text for operators, at most 500 characters; default null. */
  description?: string | null;
}

/** A partial update: only the fields present change. `url` cannot be cleared. */
export type WebhookEndpointPatch = Partial<WebhookEndpointInput>;

/** A message of the delivery log with its attempts, in order. */
export interface DeliveryLogEntry {
  message: OutboxMessage;
  attempts: DeliveryAttemptRecord[];
}

/** What the service needs. */
export interface WebhookEndpointServiceDeps {
  store: Pick<Store, 'webhookEndpoints' | 'outbox' | 'publishers'>;
  clock: Clock;
  ids: IdGenerator;
  /** Seals the secret and the API key at rest. */
  box: SecretBox;
  /** `webhooks.allowPrivateTargets`: accept http and loopback/private hosts (demo, tests). */
  allowPrivateTargets: boolean;
  /** Name resolution for the registration-time SSRF check; default the system resolver. */
  resolveAll?: ResolveAll;
  /** Called after every successful write to an endpoint (e.g. so the dispatcher drops cached endpoints). */
  onChange?: () => void;
  /** Writes new outbox messages (the `webhook.test` event) durably. */
  enqueue: (messages: OutboxMessage[]) => Promise<void>;
  /** Builds the test message; reloaded after every change so this node routes by it at once. */
  emitter: Pick<EventEmitter, 'refresh' | 'invalidate' | 'messagesFor'>;
  /** How long the previous secret keeps signing after a rotation, ms (default 24 h, DESIGN section 6). */
  rotationOverlapMs?: number;
}

/** Webhook endpoint administration. Every method rejects with `AdxError`; storage errors pass through. */
export interface WebhookEndpointService {
  /**
   * Creates an endpoint with a new signing secret (`whsec_...`) and, unless given, a new API key.
   * @returns the stored record and both secrets in clear, which are never answered again.
   * @throws AdxError `invalid_request` naming each invalid field (`url` for the SSRF rule too).
   */
  create(input: WebhookEndpointInput): Promise<{ endpoint: WebhookEndpointRecord; secret: string; apiKey: string }>;
  /** @throws AdxError `not_found`. */
  get(id: string): Promise<WebhookEndpointRecord>;
  /** Every endpoint, in the store's order. */
  list(): Promise<WebhookEndpointRecord[]>;
  /**
   * Applies `patch` and bumps `updatedAtMs`; an empty patch changes nothing.
   * @throws AdxError `invalid_request` naming each invalid field; `not_found`.
   */
  update(id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord>;
  /** Deletes the endpoint with its messages and attempts. @throws AdxError `not_found`. */
  delete(id: string): Promise<void>;
  /**
   * Issues a new secret; the old one keeps signing alongside it until `previousExpiresAtMs`
   * (now + 24 h, DESIGN section 6). @throws AdxError `not_found`.
   */
  rotateSecret(id: string): Promise<{ secret: string; previousExpiresAtMs: number }>;
  /**
   * Enqueues a `webhook.test` event for this endpoint only (whatever it subscribes to).
   * @throws AdxError `not_found`; `conflict` when the endpoint is disabled.
   */
  test(id: string): Promise<{ messageId: string }>;
  /**
   * The endpoint's messages, newest first, each with its attempts.
   * @param options.limit 1..1000, default 100.
   * @throws AdxError `not_found`; `invalid_request` naming `status` or `limit`.
   */
  deliveries(id: string, options?: { status?: string; limit?: number }): Promise<DeliveryLogEntry[]>;
  /**
   * Makes one message pending and due now (delivered ones go out again too).
   * @throws AdxError `not_found` (endpoint or message of it).
   */
  replay(id: string, messageId: string): Promise<void>;
  /**
   * Makes every `failed` message created at or after `sinceMs` pending and due now.
   * @throws AdxError `not_found`; `invalid_request` naming `since`.
   */
  recover(id: string, sinceMs: number): Promise<{ recovered: number }>;
}

/** Prefix of generated endpoint API keys, recognizable in a partner's logs. */
export const WEBHOOK_API_KEY_PREFIX = 'adxw_';

/** How long a rotated-out secret keeps signing, ms (DESIGN section 6: 24 h). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/** Longest accepted URL, api key and description, in characters. */
const MAX_URL_LENGTH = 2048;
const MAX_API_KEY_LENGTH = 512;
const MAX_DESCRIPTION_LENGTH = 500;

/** Default and largest page of `deliveries`. */
export const DEFAULT_DELIVERIES_LIMIT = 100;
/** Most messages one `deliveries` call answers (the `limit` query parameter is capped at it). */
export const MAX_DELIVERIES_LIMIT = 1000;

const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);
const STATUSES: ReadonlySet<string> = new Set<OutboxStatus>(['pending', 'delivered', 'failed']);
/** Visible ASCII only: the key travels in an HTTP header. */
const HEADER_TOKEN = /^[\x21-\x7e]+$/;

/** A new endpoint API key: `adxw_` + 32 crypto-random bytes in base64url (256 bits). */
export function generateWebhookApiKey(): string {
  return WEBHOOK_API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Validated fields of a create or patch, in store form (the api key still in clear). */
interface EndpointFields {
  url?: string;
  events?: string[];
  apiKey?: string;
  publisherId?: string | null;
  enabled?: boolean;
  description?: string | null;
}

function notFound(id: string): AdxError {
  return new AdxError('not_found', `no webhook endpoint with id ${JSON.stringify(id)}`);
}

function disabledConflict(id: string): AdxError {
  return new AdxError('conflict', `webhook endpoint ${JSON.stringify(id)} is disabled; enable it (PATCH enabled: true) before sending a test event`);
}

/** Builds the service. */
export function createWebhookEndpointService(deps: WebhookEndpointServiceDeps): WebhookEndpointService {
  const { store, clock, ids, box, allowPrivateTargets, resolveAll, onChange, enqueue, emitter } = deps;

  /** Checks the fields present in `input` (`requireUrl` for creation); async for the SSRF lookup and publisher check. */
  const checkFields = async (input: unknown, requireUrl: boolean): Promise<EndpointFields> => {
    const body = requireObject(input, 'webhook endpoint');
    const errors = new FieldErrors();
    const fields: EndpointFields = {};
    if (body.url !== undefined || requireUrl) {
      if (typeof body.url !== 'string' || body.url.trim() === '') errors.add('url', 'must be a non-empty string');
      else if (body.url.length > MAX_URL_LENGTH) errors.add('url', `must be at most ${MAX_URL_LENGTH} characters`);
      else {
        const url = body.url.trim();
        const check = await checkWebhookTarget(url, resolveAll ? { allowPrivateTargets, resolveAll } : { allowPrivateTargets });
        if (!check.ok) errors.add('url', `is not an allowed webhook target: ${check.reason}`);
        else fields.url = url;
      }
    }
    if (body.events !== undefined) {
      if (!Array.isArray(body.events)) errors.add('events', 'must be an array of event kinds');
      else {
        const kinds = new Set<string>();
        body.events.forEach((kind: unknown, i: number) => {
          if (typeof kind === 'string' && KINDS.has(kind)) kinds.add(kind);
          else errors.add(`events[${i}]`, `must be one of ${EVENT_KINDS.join(', ')}`);
        });
        fields.events = [...kinds];
      }
    }
    if (body.api_key !== undefined) {
      const key = body.api_key;
      if (typeof key !== 'string' || !HEADER_TOKEN.test(key) || key.length > MAX_API_KEY_LENGTH) {
        errors.add('api_key', `must be 1 to ${MAX_API_KEY_LENGTH} visible ASCII characters (no spaces)`);
      } else fields.apiKey = key;
    }
    if (body.publisher_id !== undefined) {
      const publisherId = body.publisher_id;
      if (publisherId === null) fields.publisherId = null;
      else if (typeof publisherId !== 'string' || publisherId === '') errors.add('publisher_id', 'must be a publisher id or null');
      else if (!(await store.publishers.get(publisherId))) errors.add('publisher_id', `no publisher with id ${JSON.stringify(publisherId)}`);
      else fields.publisherId = publisherId;
    }
    if (body.enabled !== undefined) fields.enabled = checkBoolean(body.enabled, 'enabled', errors);
    if (body.description !== undefined) {
      const description = body.description;
      if (description === null) fields.description = null;
      else if (typeof description !== 'string') errors.add('description', 'must be a string or null');
      else if (description.length > MAX_DESCRIPTION_LENGTH) errors.add('description', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
      else fields.description = description;
    }
    errors.throwIfAny('webhook endpoint');
    return fields;
  };

  /** After a write: this node's emitter routes by it before the call answers (DESIGN section 7). */
  const changed = async (): Promise<void> => {
    onChange?.();
    try {
      await emitter.refresh();
    } catch {
      // The write is committed; a failed reload is retried in the background (and logged there).
      emitter.invalidate();
    }
  };

  const get = async (id: string): Promise<WebhookEndpointRecord> => {
    const endpoint = await store.webhookEndpoints.get(id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  };

  return {
    async create(input) {
      const fields = await checkFields(input, true);
      const secret = generateWebhookSecret();
      const apiKey = fields.apiKey ?? generateWebhookApiKey();
      const nowMs = clock.now();
      const endpoint: WebhookEndpointRecord = {
        id: ids.next('ep'),
        url: fields.url as string,
        events: fields.events ?? [],
        apiKeyCiphertext: box.seal(apiKey),
        publisherId: fields.publisherId ?? null,
        enabled: fields.enabled ?? true,
        description: fields.description ?? null,
        secretCiphertext: box.seal(secret),
        previousSecretCiphertext: null,
        previousSecretExpiresAtMs: null,
        disabledReason: null,
        lastSuccessAtMs: null,
        failingSinceMs: null,
        createdAtMs: nowMs,
        updatedAtMs: nowMs,
      };
      await store.webhookEndpoints.create(endpoint);
      await changed();
      return { endpoint, secret, apiKey };
    },

    get,

    list() {
      return store.webhookEndpoints.list();
    },

    async update(id, patch) {
      const fields = await checkFields(patch, false);
      if (Object.keys(fields).length === 0) return get(id);
      const current = await get(id);
      const { apiKey, ...rest } = fields;
      const change: Partial<Omit<WebhookEndpointRecord, 'id' | 'createdAtMs'>> = { ...rest, updatedAtMs: clock.now() };
      if (apiKey !== undefined) change.apiKeyCiphertext = box.seal(apiKey);
      if (fields.enabled === true && !current.enabled) {
        change.disabledReason = null;
        change.failingSinceMs = null;
      }
      const updated = await store.webhookEndpoints.update(id, change);
      if (!updated) throw notFound(id);
      await changed();
      return updated;
    },

    async delete(id) {
      if (!(await store.webhookEndpoints.delete(id))) throw notFound(id);
      await changed();
    },

    async rotateSecret(id) {
      const current = await get(id);
      const secret = generateWebhookSecret();
      const nowMs = clock.now();
      const previousExpiresAtMs = nowMs + (deps.rotationOverlapMs ?? PREVIOUS_SECRET_TTL_MS);
      const updated = await store.webhookEndpoints.update(id, {
        secretCiphertext: box.seal(secret),
        previousSecretCiphertext: current.secretCiphertext,
        previousSecretExpiresAtMs: previousExpiresAtMs,
        updatedAtMs: nowMs,
      });
      if (!updated) throw notFound(id);
      await changed();
      return { secret, previousExpiresAtMs };
    },

    async test(id) {
      const endpoint = await get(id);
      if (!endpoint.enabled) throw disabledConflict(id);
      // The endpoint may be newer than this node's list (created on another node a moment ago).
      await emitter.refresh();
      const messages = emitter.messagesFor(webhookTestPayload(id, clock.now()), endpoint.publisherId, { onlyEndpointId: id });
      const message = messages[0];
      if (message === undefined) throw notFound(id); // deleted or disabled in between
      await enqueue([message]);
      return { messageId: message.id };
    },

    async deliveries(id, options = {}) {
      const errors = new FieldErrors();
      const { status, limit = DEFAULT_DELIVERIES_LIMIT } = options;
      if (status !== undefined && !STATUSES.has(status)) errors.add('status', 'must be one of pending, delivered, failed');
      if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_DELIVERIES_LIMIT)) {
        errors.add('limit', `must be an integer from 1 to ${MAX_DELIVERIES_LIMIT}`);
      }
      errors.throwIfAny('deliveries query');
      await get(id);
      const messages = await store.outbox.listForEndpoint(id, status === undefined ? { limit } : { status: status as OutboxStatus, limit });
      return Promise.all(messages.map(async (message) => ({ message, attempts: await store.outbox.attemptsFor(message.id) })));
    },

    async replay(id, messageId) {
      await get(id);
      if (!(await store.outbox.replay(id, messageId, clock.now()))) {
        throw new AdxError('not_found', `no message ${JSON.stringify(messageId)} of webhook endpoint ${JSON.stringify(id)}`);
      }
    },

    async recover(id, sinceMs) {
      if (!Number.isFinite(sinceMs)) {
        throw new AdxError('invalid_request', 'invalid recover request: since must be an ISO 8601 date-time', {
          errors: [{ field: 'since', message: 'must be an ISO 8601 date-time' }],
        });
      }
      await get(id);
      return { recovered: await store.outbox.recover(id, sinceMs, clock.now()) };
    },
  };
}

