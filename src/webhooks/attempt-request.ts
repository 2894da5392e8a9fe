/**
 * One delivery attempt's HTTP request (DESIGN section 6, Standard Webhooks v1): the receiver URL
 * for the event kind, refused when the SSRF rules forbid it, and the headers: the endpoint's
 * Bearer key, `webhook-id` (the message id, the same on every attempt), `webhook-timestamp` of
 * this attempt and `webhook-signature` with the current secret plus, during a rotation, the
 * previous one. The body is the stored bytes, sent as they are.
 */
import type { OutboxMessage } from '../storage/ports.js';
import type { OpenedEndpoint } from './endpoint-cache.js';
import { signatureHeader } from './signer.js';
import { checkWebhookUrl } from './ssrf.js';

/**
 * The receiver URL for an event kind: the endpoint URL's path joined with exactly one `/` to
 * `webhooks/<kind with '.' replaced by '-'>`; query string kept. DESIGN section 6, e.g.
 * `https://partner.example/hooks` + `auction.complete` -> `https://partner.example/hooks/webhooks/auction-complete`.
 * @throws TypeError when `endpointUrl` is not an absolute URL.
 */
export function deliveryUrl(endpointUrl: string, eventKind: string): string {
  const url = new URL(endpointUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/webhooks/${eventKind.replaceAll('.', '-')}`;
  return url.toString();
}

/** The attempt's URL and headers, or why it may not be sent. */
export function buildAttemptRequest(
  message: OutboxMessage,
  endpoint: OpenedEndpoint,
  startedAtMs: number,
  allowPrivateTargets: boolean,
): { url: string; headers: Record<string, string> } | { refused: string } {
  let url: string;
  try {
    url = deliveryUrl(endpoint.record.url, message.eventKind);
  } catch {
    return { refused: 'the endpoint URL is not an absolute URL' };
  }
  const target = checkWebhookUrl(url, { allowPrivateTargets });
  if (!target.ok) return { refused: target.reason };
  const { record } = endpoint;
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret !== null && record.previousSecretExpiresAtMs !== null && record.previousSecretExpiresAtMs > startedAtMs) {
    secrets.push(endpoint.previousSecret);
  }
  const timestampSeconds = Math.floor(startedAtMs / 1000);
  return {
    url,
    headers: {
      authorization: `Bearer ${endpoint.apiKey}`,
      'content-type': 'application/json',
      'user-agent': 'adx-webhooks/1',
      'webhook-id': message.id,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': signatureHeader(message.id, timestampSeconds, message.body, secrets),
    },
  };
}
