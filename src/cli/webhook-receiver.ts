/**
 * `adx webhook-receiver`: a webhook receiver for the demo, tests and partners trying the exchange
 * out. It verifies every delivery the way a partner would, with the `standardwebhooks` package
 * (Standard Webhooks v1: HMAC-SHA256 over `id.timestamp.body`, timestamps within 5 minutes).
 *
 * - `POST` (any path, normally `/webhooks/<kind>`): 204 when the signature verifies, 400 when it
 *   does not (401 when `apiKey` is set and `Authorization: Bearer <apiKey>` is missing or wrong,
 *   413 above 1 MiB). A `webhook-id` seen verified before is a repeat (at-least-once delivery):
 *   counted as received, answered 204, not verified or kept twice.
 * - `GET /stats`: `{received, verified, failed, duplicates}` as JSON.
 * - One line printed per delivery: `verified|duplicate|failed <webhook-id> <kind> <bytes>B [reason]`.
 *
 * It holds no exchange logic.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError, type Command } from 'commander';
import { Webhook } from 'standardwebhooks';

/** Options of the receiver. */
export interface WebhookReceiverOptions {
  /** The endpoint's signing secret (`whsec_...`). */
  secret: string;
  /** TCP port; 0 (default) = an ephemeral port. */
  port?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** When set, deliveries must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Where the per-delivery lines go (default: nowhere). */
  print?: (line: string) => void;
  /** Most deliveries kept in `deliveries` (oldest dropped first); default 10 000. */
  maxKept?: number;
}

/** Counts since the receiver started. */
export interface WebhookReceiverStats {
  /** POSTs received, repeats included. */
  received: number;
  /** Distinct `webhook-id`s whose signature verified. */
  verified: number;
  /** POSTs refused (bad or missing signature, wrong key, too large). */
  failed: number;
  /** Repeats of an already verified `webhook-id`. */
  duplicates: number;
}

/** A delivery as received (repeats of a verified id are not kept again). */
export interface ReceivedDelivery {
  /** `webhook-id` header, or '' when absent. */
  id: string;
  /** Last path segment (`auction-complete` for `/webhooks/auction-complete`). */
  kind: string;
  verified: boolean;
  /** The raw body, as signed. */
  body: string;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://host:port` (the base URL to register as the endpoint's `url`). */
  url: string;
  stats(): WebhookReceiverStats;
  /** Deliveries in arrival order (at most `maxKept`). */
  deliveries: ReceivedDelivery[];
  close(): Promise<void>;
}

/** Largest body accepted, bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body, or undefined when it exceeds `MAX_BODY_BYTES`. */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Header values as single strings (a repeated header's values joined with `, `). */
function flatHeaders(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Starts the receiver.
 * @throws Error when `secret` is not a usable Standard Webhooks secret, or the port cannot be bound.
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const webhook = new Webhook(options.secret);
  const host = options.host ?? '127.0.0.1';
  const print = options.print ?? (() => undefined);
  const maxKept = options.maxKept ?? 10_000;
  const counts: WebhookReceiverStats = { received: 0, verified: 0, failed: 0, duplicates: 0 };
  const verifiedIds = new Set<string>();
  const deliveries: ReceivedDelivery[] = [];

  const keep = (delivery: ReceivedDelivery): void => {
    deliveries.push(delivery);
    if (deliveries.length > maxKept) deliveries.splice(0, deliveries.length - maxKept);
  };

  const refuse = (response: ServerResponse, status: number, id: string, kind: string, bytes: number, reason: string): void => {
    counts.failed++;
    print(`failed ${id || '-'} ${kind} ${bytes}B ${reason}`);
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${reason}\n`);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (request.method === 'GET' && path === '/stats') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    counts.received++;
    const kind = path.split('/').filter((s) => s !== '').pop() ?? '';
    const id = typeof request.headers['webhook-id'] === 'string' ? request.headers['webhook-id'] : '';
    const raw = await readBody(request);
    if (raw === undefined) return refuse(response, 413, id, kind, MAX_BODY_BYTES, 'body too large');
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return refuse(response, 401, id, kind, raw.length, 'missing or wrong Authorization: Bearer key');
    }
    const body = raw.toString('utf8');
    try {
      webhook.verify(body, flatHeaders(request), { jsonParse: false });
    } catch (error) {
      keep({ id, kind, verified: false, body });
      return refuse(response, 400, id, kind, raw.length, error instanceof Error ? error.message : 'verification failed');
    }
    if (verifiedIds.has(id)) {
      counts.duplicates++;
      print(`duplicate ${id} ${kind} ${raw.length}B`);
    } else {
      verifiedIds.add(id);
      counts.verified++;
      keep({ id, kind, verified: true, body });
      print(`verified ${id} ${kind} ${raw.length}B`);
    }
    response.writeHead(204).end();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    stats: () => ({ ...counts }),
    deliveries,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return n;
}

/**
 * Adds `webhook-receiver --secret whsec_... [--port N] [--host H] [--api-key K]` to `program`: starts
 * the receiver, prints `webhook-receiver listening on http://...` and one line per delivery, and
 * stops on SIGINT/SIGTERM.
 */
export function registerWebhookReceiverCommand(program: Command): Command {
  return program
    .command('webhook-receiver')
    .description('run a webhook receiver that verifies Standard Webhooks signatures (demo, tests, partners)')
    .requiredOption('--secret <secret>', 'the endpoint signing secret (whsec_...)')
    .option('--port <port>', 'TCP port (0 = ephemeral)', port, 0)
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--api-key <key>', 'require Authorization: Bearer <key> on deliveries')
    .action(async (opts: { secret: string; port: number; host: string; apiKey?: string }) => {
      const print = (line: string): void => void process.stdout.write(`${line}\n`);
      const receiver = await startWebhookReceiver({ ...opts, print });
      print(`webhook-receiver listening on ${receiver.url}`);
      const stop = (): void => {
        void receiver.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
