/**
 * The console's only way out: `fetch` to the exchange's own admin API (same origin, relative
 * URLs), with the admin key from this tab's sessionStorage as `Authorization: Bearer` (DESIGN
 * section 12: never in a URL, a cookie or a log). Errors come back as `ApiError` carrying the
 * RFC 9457 problem body, so forms can show `errors[{field, message}]` next to their fields.
 */

import type { JsonSchema } from './fields.js';

export type { JsonSchema };

/** sessionStorage key of the admin key: per tab, gone when the tab closes. */
const KEY_SLOT = 'adx.console.adminKey';

/** An RFC 9457 problem body (DESIGN section 8). */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  errors?: Array<{ field: string; message: string }>;
}

/** A failed API call: HTTP status and the problem body (or one made up for a network error). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
    this.name = 'ApiError';
  }
  get status(): number {
    return this.problem.status;
  }
}

/** The admin key of this tab, or null before sign-in. */
export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_SLOT);
}

/** Forgets the key (sign out, or a 401 on a later call). */
export function forgetKey(): void {
  sessionStorage.removeItem(KEY_SLOT);
}

/** Listeners told when a call answers 401 (the key was rotated or the exchange restarted with another). */
const unauthorizedListeners = new Set<() => void>();
/** Registers `listener` for an API answer of 401/403 (the admin key stopped working); returns the unregister function. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

async function send(method: string, path: string, body: unknown, key: string | null): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  } catch (error) {
    throw new ApiError({ status: 0, title: 'Network error', detail: `the exchange did not answer (${String(error)})` });
  }
}

async function readAnswer<T>(response: Response): Promise<T> {
  const text = await response.text();
  const json = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (!response.ok) {
    const problem = (json ?? {}) as Partial<Problem>;
    throw new ApiError({ ...problem, status: response.status });
  }
  return json as T;
}

/**
 * Calls the admin API with this tab's key. Answers the parsed JSON body (undefined for 204).
 * @throws ApiError with the problem body on a non-2xx answer (after telling the 401 listeners on 401).
 */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(method, path, body, storedKey());
  if (response.status === 401) {
    for (const listener of unauthorizedListeners) listener();
  }
  return readAnswer<T>(response);
}

/**
 * Checks `key` against the exchange (an authenticated read) and keeps it for this tab when it is
 * right. @throws ApiError (status 401 for a wrong key).
 */
export async function signIn(key: string): Promise<void> {
  const response = await send('GET', '/v1/stats', undefined, key);
  await readAnswer(response);
  sessionStorage.setItem(KEY_SLOT, key);
}

/** The exchange's OpenAPI document (no key needed): the console reads its body schemas to build and check forms. */
export async function openApi(): Promise<OpenApiDocument> {
  return readAnswer<OpenApiDocument>(await send('GET', '/v1/openapi.json', undefined, null));
}

/** The part of an OpenAPI 3.0 document the console reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}

/** The JSON body schema of `method path` in `doc`, if documented. */
export function bodySchema(doc: OpenApiDocument | null, method: string, path: string): JsonSchema | undefined {
  return doc?.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
}
