/**
 * Security of keys and the admin API (issue 7 part 5; DESIGN sections 7, 8 and 9): publisher
 * API keys are stored hashed (the SQLite files never hold a key's bytes); every admin route
 * listed in `/v1/openapi.json` refuses a call without the admin key or with a wrong one; problem
 * bodies never carry a stack trace or a file path; logs at `debug` never carry a key or secret.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBid, startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';
import { leakIn } from '../fuzz/http-probe.js';
import { startLoggedExchange, type LoggedExchange } from './logged-exchange.js';

const bidRequest = {
  id: 'sec-req',
  imp: [{ id: '1', banner: { w: 300, h: 250 } }],
  site: { domain: 'pub.example', publisher: { id: 'p1' } },
  tmax: 300,
};

/** Routes that need no admin key (DESIGN section 7) or have their own auth (bid, notices). */
const PUBLIC = [/^\/healthz$/, /^\/sellers\.json$/, /^\/readyz$/, /^\/metrics$/, /^\/v1\/openapi\.json$/, /^\/v1\/openrtb\//, /^\/v1\/notice\//];

describe('keys at rest', () => {
  it('publisher API keys (first and rotated) are never in the SQLite files (nor the admin or secret key)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adx-keys-'));
    const ex = await startTestExchange({ dir });
    try {
      const rotated = await ex.admin('POST', `/v1/publishers/${ex.publisherId}/keys`);
      expect(rotated.status).toBeLessThan(300);
      const newKey: string = rotated.json().api_key;
      expect(typeof newKey).toBe('string');
      const second = await ex.admin('POST', '/v1/publishers', { name: 'Second', domain: 'second.example' });
      const secondKey: string = second.json().api_key;
      expect((await ex.bid(bidRequest, { headers: { authorization: `Bearer ${newKey}` } })).status).toBeLessThan(300);
      await ex.close();
      const bytes = Buffer.concat(readdirSync(dir).filter((f) => f.startsWith('adx.db')).map((f) => readFileSync(join(dir, f))));
      expect(bytes.includes(ex.publisherId)).toBe(true); // we are looking at the right data
      for (const key of [ex.apiKey, newKey, secondKey]) {
        expect(bytes.includes(key), `key ${key.slice(0, 8)}... stored in clear`).toBe(false);
        expect(bytes.includes(key.slice(-16)), 'a key tail is stored').toBe(false);
      }
      expect(bytes.includes(ex.adminKey)).toBe(false);
      expect(bytes.includes('test-secret-key')).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('admin API and problem bodies', () => {
  let ex: TestExchange;
  let dsp: FakeDsp;
  beforeAll(async () => {
    dsp = await startFakeDsp((body) => ({ status: 200, body: { id: body?.id, seatbid: [{ bid: (body?.imp ?? []).map((imp) => fakeBid(imp)) }] } }));
    ex = await startTestExchange({ partners: [{ name: 'dsp', endpoint: dsp.url }] });
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  it('every admin route in /v1/openapi.json answers 401 problem+json without the key, with a wrong key, and with a non-Bearer scheme', async () => {
    const spec = (await ex.admin('GET', '/v1/openapi.json')).json();
    const routes: Array<{ method: string; path: string }> = [];
    for (const [path, ops] of Object.entries<Record<string, unknown>>(spec.paths)) {
      if (PUBLIC.some((re) => re.test(path))) continue;
      for (const method of Object.keys(ops)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'some-id') });
      }
    }
    // At least the publisher and demand partner routes of DESIGN section 7.
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /v1/publishers', 'GET /v1/publishers', 'DELETE /v1/publishers/some-id', 'POST /v1/demand-partners', 'PATCH /v1/demand-partners/some-id']));
    const failures: string[] = [];
    for (const { method, path } of routes) {
      for (const authorization of [undefined, 'Bearer wrong-key', `Basic ${Buffer.from(`admin:${ex.adminKey}`).toString('base64')}`, `Bearer ${ex.apiKey}`, `Bearer ${ex.adminKey}x`]) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (authorization) headers.authorization = authorization;
        const res = await request(`${ex.url}${path}`, { method: method as 'GET', headers, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
        const text = await res.body.text();
        const ok = res.statusCode === 401 && String(res.headers['content-type']).startsWith('application/problem+json') && JSON.parse(text).status === 401;
        if (!ok) failures.push(`${method} ${path} with ${authorization ?? 'no key'}: ${res.statusCode} ${text.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    // Nothing was created by the refused calls.
    expect((await ex.admin('GET', '/v1/publishers')).json().data).toHaveLength(1);
  });

  it('problem bodies never carry stack traces or file paths', async () => {
    const bid = (body: unknown, headers: Record<string, string> = {}) => ex.bid(body, { headers });
    const answers: Array<{ label: string; status: number; body: Buffer; type: unknown }> = [];
    const push = (label: string, r: { status: number; body: Buffer; headers: Record<string, unknown> }) => answers.push({ label, status: r.status, body: r.body, type: r.headers['content-type'] });
    const raw = async (label: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
      const res = await request(`${ex.url}${path}`, { method: method as 'GET', headers, body });
      push(label, { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()), headers: res.headers });
    };
    push('invalid JSON', await bid('{"id": '));
    push('validation', await bid({ id: '', imp: 'x' }));
    push('no key', await bid(bidRequest, { authorization: '' }));
    push('unknown key', await bid(bidRequest, { authorization: 'Bearer adxk_unknown' }));
    push('415', await bid(bidRequest, { 'content-type': 'application/xml' }));
    push('413', await bid(JSON.stringify({ ...bidRequest, pad: 'x'.repeat(70_000) })));
    push('bad gzip', await bid('garbage', { 'content-encoding': 'gzip' }));
    await raw('404 route', 'GET', '/v1/no-such-route');
    await raw('405-ish', 'PUT', '/v1/openrtb/2.5/bidrequest', { authorization: `Bearer ${ex.apiKey}` }, '{}');
    await raw('forged token', 'GET', '/v1/notice/win?t=AAAA&price=1');
    await raw('missing token', 'GET', '/v1/notice/billing');
    await raw('admin invalid body', 'POST', '/v1/publishers', { authorization: `Bearer ${ex.adminKey}`, 'content-type': 'application/json' }, '{"name": 5}');
    await raw('admin broken JSON', 'POST', '/v1/demand-partners', { authorization: `Bearer ${ex.adminKey}`, 'content-type': 'application/json' }, '{"name":');
    await raw('admin unknown id', 'GET', '/v1/publishers/pub_doesnotexist', { authorization: `Bearer ${ex.adminKey}` });
    await raw('admin bad endpoint', 'POST', '/v1/demand-partners', { authorization: `Bearer ${ex.adminKey}`, 'content-type': 'application/json' }, '{"name":"x","endpoint":"not a url"}');
    await raw('admin wrong content-type', 'POST', '/v1/publishers', { authorization: `Bearer ${ex.adminKey}`, 'content-type': 'text/xml' }, '<x/>');
    const failures: string[] = [];
    for (const a of answers) {
      const text = a.body.toString('utf8');
      if (a.status < 400) failures.push(`${a.label}: expected an error, got ${a.status}`);
      if (!String(a.type).startsWith('application/problem+json')) failures.push(`${a.label}: content-type ${String(a.type)}`);
      const leak = leakIn(text) ?? (/\bstack\b|Error: /.test(text) ? `mentions a stack: ${text.slice(0, 200)}` : undefined);
      if (leak) failures.push(`${a.label}: ${leak}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('logs never carry keys or secrets', () => {
  let ex: LoggedExchange;
  let dsp: FakeDsp;
  beforeAll(async () => {
    dsp = await startFakeDsp();
    ex = await startLoggedExchange('debug');
  });
  afterAll(async () => {
    await ex?.close();
    await dsp?.close();
  });

  it('at debug level, traffic with admin calls, bids, notices and errors logs no API key, admin key or secret key', async () => {
    const pub = await ex.admin('POST', '/v1/publishers', { name: 'Logged', domain: 'logged.example' });
    expect(pub.status).toBe(201);
    const apiKey: string = pub.json().api_key;
    const rotated = await ex.admin('POST', `/v1/publishers/${pub.json().id}/keys`);
    const newKey: string = rotated.json().api_key;
    // A partner that fails half the time, so the dispatcher logs at debug.
    let n = 0;
    dsp.setBehaviour((body) => (n++ % 2 === 0 ? { status: 200, body: { id: body?.id, seatbid: [{ bid: (body?.imp ?? []).map((imp) => fakeBid(imp)) }] } } : { status: 500, body: 'nope' }));
    expect((await ex.admin('POST', '/v1/demand-partners', { name: 'logged-dsp', endpoint: dsp.url })).status).toBe(201);
    await ex.admin('GET', '/v1/publishers', undefined, 'wrong-admin-key');
    await ex.admin('GET', '/v1/publishers');

    const nurls: string[] = [];
    for (const [i, key] of [apiKey, newKey, apiKey, newKey, 'adxk_not_a_real_key'].entries()) {
      const res = await request(`${ex.url}/v1/openrtb/2.5/bidrequest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: i === 3 ? '{"id": broken' : JSON.stringify(bidRequest),
      });
      const text = await res.body.text();
      if (res.statusCode === 200) nurls.push(...JSON.parse(text).seatbid.flatMap((s: any) => s.bid.map((b: any) => b.nurl)));
    }
    for (const nurl of nurls) {
      const res = await request(nurl.replace('${AUCTION_PRICE}', '0.5'));
      await res.body.dump();
      const forged = await request(nurl.replace('t=', 't=x').replace('${AUCTION_PRICE}', '1'));
      await forged.body.dump();
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // let pino's writes and partner notices land

    const log = ex.logText();
    expect(log.length).toBeGreaterThan(0);
    for (const [name, secret] of Object.entries({ apiKey, newKey, adminKey: ex.adminKey, secretKey: ex.secretKey, wrongAdmin: 'wrong-admin-key', unknownKey: 'adxk_not_a_real_key' })) {
      expect(log.includes(secret), `${name} appears in the log`).toBe(false);
    }
  });
});
