/**
 * An in-process exchange like `startTestExchange` (test/helpers/exchange.ts) but built with
 * `createRuntime` and a real pino logger at `level` writing into memory, so security tests can
 * grep every log line the exchange wrote.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { freePort } from '../../src/cli/free-port.js';
import { defaults } from '../../src/config/defaults.js';
import { mergeConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { createLogger } from '../../src/observability/logger.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

/** A running exchange whose log lines are kept in `logText()`. */
export interface LoggedExchange {
  url: string;
  adminKey: string;
  secretKey: string;
  runtime: Runtime;
  /** The temp dir holding the SQLite files (`adx.db*`). */
  dir: string;
  /** Everything the logger wrote so far (JSON lines). */
  logText(): string;
  admin(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; json(): any; text: string }>;
  /** Stops the exchange; the dir is removed unless `keepDir` was given (the caller removes it then). */
  close(): Promise<void>;
}

/**
 * Starts an exchange logging at `level` (e.g. `debug`) into memory; `options.config` is
 * deep-merged over the test config, `options.keepDir` leaves the SQLite files on close.
 */
export async function startLoggedExchange(level: string, options: { config?: Record<string, unknown>; keepDir?: boolean } = {}): Promise<LoggedExchange> {
  const dir = await mkdtemp(join(tmpdir(), 'adx-sec-'));
  const adminKey = 'sec-admin-key-7f1c2d';
  const secretKey = 'sec-secret-key-93ab44';
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const base: Config = mergeConfig(defaults as Config, {
    server: { port, host: '127.0.0.1', publicUrl: url },
    storage: { databaseUrl: join(dir, 'adx.db') },
    security: { adminKey, secretKey },
    log: { level },
    overload: { maxEventLoopDelayMs: 5000 },
  });
  const config: Config = mergeConfig(base, options.config ?? {});
  const runtime = await createRuntime({ config, log: createLogger(level, sink) });
  await runtime.start();

  const admin = async (method: string, path: string, body?: unknown, key = adminKey) => {
    const res = await request(`${url}${path}`, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    return { status: res.statusCode, text, json: () => (text ? JSON.parse(text) : undefined) };
  };
  return {
    url,
    adminKey,
    secretKey,
    runtime,
    dir,
    logText: () => chunks.join(''),
    admin,
    async close() {
      await runtime.close();
      if (!options.keepDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
