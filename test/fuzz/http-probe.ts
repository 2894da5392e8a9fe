/**
 * Raw HTTP probes for the bid endpoint fuzz tests: send any bytes with any headers (no header
 * added behind the caller's back, so "no Content-Type" really means none), and check an answer
 * against the endpoint's robustness contract (DESIGN sections 2 and 8).
 */
import { request } from 'undici';

/** Path of the bid endpoint (DESIGN section 2). */
export const BID_PATH = '/v1/openrtb/2.5/bidrequest';

/** One answer as received: status, headers and the body bytes. */
export interface ProbeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One probe: the bytes sent, the exact headers sent, an optional query string (`?gzip=1`). */
export interface Probe {
  label: string;
  body: Buffer | string;
  headers: Record<string, string>;
  query?: string;
}

/**
 * POSTs `probe` to the bid endpoint at `baseUrl` and reads the whole answer.
 * Rejects when the connection is dropped (socket reset, closed before an answer): the fuzz
 * property treats that as a failure.
 */
export async function sendProbe(baseUrl: string, probe: Probe): Promise<ProbeAnswer> {
  const res = await request(`${baseUrl}${BID_PATH}${probe.query ?? ''}`, { method: 'POST', headers: probe.headers, body: probe.body });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** Headers of a normal publisher request with `apiKey`, plus `extra`. */
export function jsonHeaders(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...extra };
}

/** A stack frame (`at fn (file:1:2)`), a source path or a module URL: what must never reach a client. */
const LEAK_PATTERNS: RegExp[] = [/\bat [^\n]*\(.*:\d+:\d+\)/, /\n\s+at /, /file:\/\//, /node_modules/, /\.[cm]?[jt]s:\d+/, /(^|[\s"'(])\/(?:home|work|tmp|usr|var|root)\//];

/**
 * Why `answer` breaks the contract, or undefined when it holds: the status is 2xx or 4xx (never
 * 5xx, never 1xx/3xx); a 4xx has `Content-Type: application/problem+json` and a JSON body whose
 * `status` equals the HTTP status, with a string `title`, and no stack trace or file path; a 200
 * is a JSON object; a 204 has an empty body.
 */
export function contractViolation(answer: ProbeAnswer): string | undefined {
  const { status } = answer;
  if (status >= 500) return `server error ${status}: ${answer.body.toString('utf8').slice(0, 300)}`;
  if (status < 200 || (status >= 300 && status < 400)) return `unexpected status ${status}`;
  if (status === 204) return answer.body.length === 0 ? undefined : '204 with a body';
  const type = String(answer.headers['content-type'] ?? '');
  if (status >= 400) {
    if (!type.startsWith('application/problem+json')) return `${status} with content-type ${JSON.stringify(type)}`;
    const problem = parseJson(answer.body);
    if (problem === undefined || typeof problem !== 'object' || problem === null) return `${status} body is not a JSON object`;
    const p = problem as Record<string, unknown>;
    if (p.status !== status) return `problem status ${String(p.status)} differs from HTTP ${status}`;
    if (typeof p.title !== 'string') return 'problem without a title';
    return leakIn(answer.body.toString('utf8'));
  }
  if (status === 200) {
    const body = parseJson(answer.body);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return '200 body is not a JSON object';
  }
  return undefined;
}

/** The first stack-trace or file-path pattern found in `text`, described; undefined when clean. */
export function leakIn(text: string): string | undefined {
  for (const pattern of LEAK_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return `leaks ${JSON.stringify(match[0])} in ${text.slice(0, 300)}`;
  }
  return undefined;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Runs `tasks` with at most `concurrency` in flight and answers their results in order.
 * A task's rejection rejects the whole run (after the tasks already started settle).
 */
export async function runPool<T>(tasks: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  });
  await Promise.all(workers);
  return results;
}
