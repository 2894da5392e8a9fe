/**
 * HTTP to demand partners: undici keep-alive pools (one per partner origin), a hard per-call
 * budget, gzip both ways and a byte cap on answers (DESIGN section 5). Used by the dispatcher
 * only; adapters never see it (STYLE 2).
 */
import { Agent } from 'undici';
import { constants as zlibConstants, gzip, type InputType, type ZlibOptions } from 'node:zlib';
import type { AdapterError, PartnerHttpRequest, PartnerHttpResponse } from './contract.js';
import { gunzipCapped, readCapped } from './read-body.js';
import { AbortEmitter } from '../deadline-signal.js';

/** How one HTTP exchange with a partner ended: its answer, or a failure as data. */
export type PartnerHttpResult = { ok: true; response: PartnerHttpResponse } | { ok: false; error: AdapterError };

/** Sends partner requests. */
export interface PartnerHttpClient {
  /**
   * POSTs `request` (body serialized once with JSON.stringify; gzipped with
   * `content-encoding: gzip` and asking `accept-encoding: gzip` when `gzip`: a partner's `gzip` setting
   * covers both directions, since compressing sub-kilobyte bid JSON costs more CPU than it saves) and reads the answer.
   * Resolves within `budgetMs` (ms, integer >= 1) plus event-loop latency: past the budget the
   * call is aborted and answered `timeout` without waiting for the partner. Never rejects.
   * Failures: `timeout`; `too_large` (more than `maxResponseBytes`, raw or inflated, detected
   * while reading); `network` (refused, reset, socket closed mid-answer); `bad_response`
   * (corrupt gzip or an unsupported content-encoding); `bad_input` (endpoint not an http(s) URL).
   */
  send(request: PartnerHttpRequest, options: { budgetMs: number; gzip: boolean }): Promise<PartnerHttpResult>;
  /** Closes every pooled connection; pending calls finish or time out first. */
  close(): Promise<void>;
}

interface Target {
  origin: string;
  path: string;
}

/** Endpoint URLs seen, parsed once; bounded so changing endpoints cannot grow it forever. */
const MAX_CACHED_TARGETS = 1024;

function gzipAsync(data: InputType, options: ZlibOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gzip(data, options, (err, out) => (err ? reject(err) : resolve(out)));
  });
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function classify(err: unknown): AdapterError {
  const e = err as { code?: string; name?: string; message?: string };
  if ((e.code && TIMEOUT_CODES.has(e.code)) || e.name === 'AbortError' || e.name === 'TimeoutError') {
    return { kind: 'timeout', message: e.message ?? 'timed out' };
  }
  return { kind: 'network', message: e.message ?? String(err) };
}

/**
 * A client over one undici `Agent` (a keep-alive `Pool` of `connectionsPerPartner`
 * connections per origin). `maxResponseBytes` caps each answer (bytes, compressed and inflated).
 */
export function createPartnerHttpClient(deps: { connectionsPerPartner: number; maxResponseBytes: number }): PartnerHttpClient {
  const agent = new Agent({
    connections: deps.connectionsPerPartner,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
  });
  const maxBytes = deps.maxResponseBytes;
  const targets = new Map<string, Target | null>();

  function targetOf(uri: string): Target | null {
    let target = targets.get(uri);
    if (target !== undefined) return target;
    try {
      const url = new URL(uri);
      target = url.protocol === 'http:' || url.protocol === 'https:' ? { origin: url.origin, path: `${url.pathname}${url.search}` } : null;
    } catch {
      target = null;
    }
    if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
    targets.set(uri, target);
    return target;
  }

  async function exchange(request: PartnerHttpRequest, budgetMs: number, useGzip: boolean, signal: AbortEmitter): Promise<PartnerHttpResult> {
    const target = targetOf(request.uri);
    if (!target) return { ok: false, error: { kind: 'bad_input', message: `endpoint ${JSON.stringify(request.uri)} is not an http(s) URL` } };
    const headers: Record<string, string> = useGzip ? { ...request.headers, 'accept-encoding': 'gzip' } : { ...request.headers };
    let payload: string | Buffer;
    try {
      payload = JSON.stringify(request.body);
    } catch (err) {
      // e.g. 20,000 nested arrays inside an ext: too deep to serialize (RangeError), not the partner's fault.
      return { ok: false, error: { kind: 'bad_input', message: `the request cannot be serialized: ${(err as Error).message}` } };
    }
    try {
      if (useGzip) {
        // Bid requests are small and latency-bound: the fastest level keeps most of the gain.
        payload = await gzipAsync(payload, { level: zlibConstants.Z_BEST_SPEED });
        headers['content-encoding'] = 'gzip';
      }
      if (signal.aborted) return { ok: false, error: { kind: 'timeout', message: 'budget spent before sending' } };
      const res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: request.method,
        headers,
        body: payload,
        signal,
        headersTimeout: budgetMs,
        bodyTimeout: budgetMs,
      });
      const declared = Number(firstHeader(res.headers['content-length']));
      if (declared > maxBytes) {
        res.body.destroy();
        return { ok: false, error: { kind: 'too_large', message: `content-length ${declared} exceeds ${maxBytes} bytes` } };
      }
      const raw = await readCapped(res.body, maxBytes);
      if (!raw) return { ok: false, error: { kind: 'too_large', message: `answer exceeds ${maxBytes} bytes` } };
      let bytes = raw;
      const encoding = firstHeader(res.headers['content-encoding'])?.trim().toLowerCase();
      if (encoding === 'gzip' || encoding === 'x-gzip') {
        let inflated: Buffer | undefined;
        try {
          inflated = await gunzipCapped(raw, maxBytes);
        } catch {
          return { ok: false, error: { kind: 'bad_response', message: 'answer is not valid gzip' } };
        }
        if (!inflated) return { ok: false, error: { kind: 'too_large', message: `inflated answer exceeds ${maxBytes} bytes` } };
        bytes = inflated;
      } else if (encoding && encoding !== 'identity') {
        return { ok: false, error: { kind: 'bad_response', message: `unsupported content-encoding ${JSON.stringify(encoding)}` } };
      }
      return { ok: true, response: { status: res.statusCode, headers: flattenHeaders(res.headers), body: bytes.toString('utf8') } };
    } catch (err) {
      return { ok: false, error: classify(err) };
    }
  }

  return {
    send(request, options) {
      const budgetMs = options.budgetMs;
      return new Promise<PartnerHttpResult>((resolve) => {
        // An AbortEmitter, not an AbortController: node 20 promotes every AbortSignal (src/deadline-signal.ts).
        const abort = new AbortEmitter();
        let settled = false;
        // Racing a timer (not only undici's own timeouts) is what guarantees the budget: a
        // request still queued for a pooled connection is not aborted by undici until it gets one.
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          const message = `no complete answer within ${budgetMs} ms`;
          abort.abort(new DOMException(message, 'TimeoutError'));
          resolve({ ok: false, error: { kind: 'timeout', message } });
        }, budgetMs);
        const finish = (result: PartnerHttpResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(result);
        };
        // exchange() returns failures as data; the catch is a last guard so nothing can reject unhandled.
        exchange(request, budgetMs, options.gzip, abort).then(finish, (err: unknown) =>
          finish({ ok: false, error: { kind: 'network', message: err instanceof Error ? err.message : String(err) } }),
        );
      });
    },
    async close() {
      await agent.close();
    },
  };
}
