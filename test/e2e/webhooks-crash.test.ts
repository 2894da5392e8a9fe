/**
 * Durability of `auction.complete` across a crash (DESIGN section 6, issue 3 "Done means"): the
 * exchange runs as a real child process (the built `dist/`), its webhook receiver is down, bid
 * requests flow; the exchange is SIGKILLed mid-traffic, the receiver comes up, the exchange is
 * restarted on the same SQLite file — and every auction whose bid response was answered has its
 * `auction.complete` delivered (verified with `standardwebhooks`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startCliChild, type StartedChild } from '../../src/cli/child-process.js';
import { freePort } from '../../src/cli/free-port.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../src/cli/webhook-receiver.js';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { DIST_CLI, distBuilt } from '../helpers/dist.js';

const API_KEY = 'adxk_crash_test_publisher_key';
const ADMIN_KEY = 'crash-admin-key';

describe.skipIf(!distBuilt())('auction.complete survives SIGKILL', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('delivers every answered auction after a crash and restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adx-crash-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const dsp: FakeDsp = await startFakeDsp((body: any) => ({
      status: 200,
      body: { id: body.id, seatbid: [{ bid: body.imp.map((imp: any) => ({ id: `b-${imp.id}`, impid: imp.id, price: 1.5, adm: '<p>ad</p>', crid: 'c', w: 300, h: 250 })) }] },
    }));
    cleanups.push(() => dsp.close());
    const configPath = join(dir, 'seed.json');
    await writeFile(configPath, JSON.stringify({ seed: { publishers: [{ name: 'crash-pub', api_key: API_KEY }], demand_partners: [{ name: 'dsp', endpoint: dsp.url }] } }));
    const port = await freePort();
    const receiverPort = await freePort();
    const env = {
      ADX_CONFIG: configPath,
      DATABASE_URL: join(dir, 'adx.db'),
      PORT: String(port),
      ADX_ADMIN_KEY: ADMIN_KEY,
      ADX_SECRET_KEY: 'crash-secret',
      ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
      // Many short retries: the receiver is down for the first part of the test.
      ADX_WEBHOOK_RETRY_SCHEDULE_MS: ['0', ...Array(60).fill('250')].join(','),
      LOG_LEVEL: 'warn',
    };
    const start = () => startCliChild(['serve'], { cliPath: DIST_CLI, env: { ...env, LOG_LEVEL: 'info' }, readyPattern: /adx listening/ });

    let exchange: StartedChild = await start();
    cleanups.push(() => exchange.stop(1000));
    const created = await request(`${exchange.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}`, events: ['auction.complete'] }),
    });
    expect(created.statusCode).toBe(201);
    const { secret } = (await created.body.json()) as { secret: string };

    // Traffic: 4 concurrent senders; SIGKILL after ~40 answered bids, while requests are in flight.
    const answeredBidIds = new Set<string>();
    const pool = new Pool(exchange.url, { connections: 4 });
    let killed = false;
    let n = 0;
    const sender = async () => {
      while (!killed) {
        const id = `crash-${n++}`;
        try {
          const res = await pool.request({
            method: 'POST',
            path: '/v1/openrtb/2.5/bidrequest',
            headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ id, imp: [{ id: '1', banner: { w: 300, h: 250 } }], tmax: 500 }),
          });
          const text = await res.body.text();
          if (res.statusCode === 200) for (const seat of JSON.parse(text).seatbid) for (const bid of seat.bid) answeredBidIds.add(bid.id);
          if (answeredBidIds.size >= 40 && !killed) {
            killed = true;
            exchange.child.kill('SIGKILL');
          }
        } catch {
          // requests cut by the kill
        }
      }
    };
    await Promise.all([sender(), sender(), sender(), sender()]);
    await pool.destroy().catch(() => undefined);
    await new Promise<void>((resolve) => (exchange.child.exitCode !== null || exchange.child.signalCode !== null ? resolve() : exchange.child.once('exit', () => resolve())));
    expect(exchange.child.signalCode).toBe('SIGKILL');
    expect(answeredBidIds.size).toBeGreaterThanOrEqual(40);

    const receiver: WebhookReceiver = await startWebhookReceiver({ secret, port: receiverPort });
    cleanups.push(() => receiver.close());
    exchange = await start();

    const delivered = new Set<string>();
    const until = Date.now() + 20_000;
    while (Date.now() < until) {
      delivered.clear();
      for (const d of receiver.deliveries) if (d.verified && d.kind === 'auction-complete') delivered.add(JSON.parse(d.body).bid_id);
      if ([...answeredBidIds].every((id) => delivered.has(id))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const missing = [...answeredBidIds].filter((id) => !delivered.has(id));
    expect(missing).toEqual([]);
    expect(receiver.stats().failed).toBe(0);
  }, 60_000);
});
