/**
 * One webhook HTTP attempt (DESIGN section 6): POST the stored body bytes with the signed
 * headers, no redirect followed, bounded in time, answer excerpt at most 1 KiB. Never throws:
 * every failure comes back as data for the attempt record.
 */
import { Agent } from 'undici';
import type { LookupFunction } from 'node:net';
import { deadlineSignal } from '../deadline-signal.js';

/** Most bytes of an answer kept as the attempt's excerpt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** What one attempt gave. */
export interface AttemptResult {
  /** HTTP status, or null when no answer came (refused, connect error, timeout). */
  statusCode: number | null;
  /** Raw `Retry-After` header of the answer, if any. */
  retryAfter: string | undefined;
  /** First bytes of the answer body as UTF-8 (at most `RESPONSE_EXCERPT_BYTES`), or null. */
  excerpt: string | null;
  /** Why no answer came, or null when one did. */
  error: string | null;
}

/**
 * The keep-alive Agent webhook attempts go through, separate from the bid path's. With `lookup`
 * (the SSRF guard's `guardedLookup`) every new connection is checked at connect time.
 */
export function createWebhookAgent(options: { lookup?: LookupFunction; connectTimeoutMs: number; connectionsPerOrigin: number }): Agent {
  return new Agent({
    connections: options.connectionsPerOrigin,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connect: options.lookup === undefined ? { timeout: options.connectTimeoutMs } : { timeout: options.connectTimeoutMs, lookup: options.lookup },
  });
}

/** Origin + path of the endpoint URLs seen (a few per exchange), so an attempt parses none. */
const targets = new Map<string, { origin: string; path: string }>();
/** Bound of `targets` (cleared when reached). */
const MAX_CACHED_TARGETS = 1_000;

/** `url`'s origin and path + query (WHATWG URL); throws a TypeError for an invalid URL. */
function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/**
 * POSTs `body` to `url` through `agent` and reads at most `RESPONSE_EXCERPT_BYTES` of the answer
 * (the rest is discarded by closing the stream). `timeoutMs` bounds the whole attempt (connect,
 * headers, body) through one deadline signal; `signal` aborts it early (shutdown). undici's own
 * per-request header and body timers are off: the deadline already bounds both, and undici keeps
 * timers of 1 s or more in a list it sweeps about once a second, which kept each attempt's
 * objects alive into the old generation. Redirects are not followed (undici's `request` follows
 * none without the redirect interceptor), so a 3xx is returned as is. Never rejects.
 */
export async function deliverOnce(input: {
  agent: Agent;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<AttemptResult> {
  // Not AbortSignal.timeout/any: their timers outlive the attempt (src/deadline-signal.ts).
  const deadline = deadlineSignal(input.timeoutMs, input.signal);
  const signal = deadline.signal;
  try {
    const { origin, path } = targetOf(input.url);
    const response = await input.agent.request({
      origin,
      path,
      method: 'POST',
      headers: input.headers,
      body: input.body,
      headersTimeout: 0,
      bodyTimeout: 0,
      signal,
    });
    const retryAfterHeader = response.headers['retry-after'];
    const retryAfter = Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader;
    let excerpt: string | null = null;
    try {
      excerpt = await readExcerpt(response.body);
    } catch {
      // The status already came; a body cut short does not change the outcome.
    }
    return { statusCode: response.statusCode, retryAfter, excerpt, error: null };
  } catch (error) {
    return { statusCode: null, retryAfter: undefined, excerpt: null, error: describeError(error, deadline.timedOut, input.timeoutMs) };
  } finally {
    deadline.dispose();
  }
}

/** Reads up to `RESPONSE_EXCERPT_BYTES`, then stops reading (leaving the loop destroys the stream). */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = RESPONSE_EXCERPT_BYTES - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (size >= RESPONSE_EXCERPT_BYTES) break;
  }
  return size === 0 ? null : Buffer.concat(chunks, size).toString('utf8');
}

/** A short, secret-free description of why an attempt got no answer. */
function describeError(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT' || err.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timeout after ${timeoutMs} ms (${err.code})`;
  }
  const code = err.code ?? err.cause?.code;
  const message = err.message ?? String(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
