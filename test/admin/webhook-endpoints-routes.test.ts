import { afterEach, describe, expect, it } from 'vitest';
import { auth, createWebhookHarness, type WebhookHarness } from '../events/webhook-harness.js';

describe('/v1/webhook-endpoints', () => {
  let h: WebhookHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    h!.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('creates (201, secret and api_key shown once), gets, lists, patches and deletes', async () => {
    h = await createWebhookHarness();
    const res = await call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9999/hooks', events: ['auction.complete'], description: 'demo', color: 'ignored' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: created.id,
      url: 'http://127.0.0.1:9999/hooks',
      events: ['auction.complete'],
      publisher_id: null,
      enabled: true,
      disabled_reason: null,
      description: 'demo',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      secret: created.secret,
      api_key: created.api_key,
    });
    expect(created.id).toMatch(/^ep_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created.api_key).toMatch(/^adxw_[A-Za-z0-9_-]{43}$/);
    // Stored sealed, never in clear.
    const record = await h.store.webhookEndpoints.get(created.id);
    expect(record?.secretCiphertext).not.toContain(created.secret.slice(6));
    expect(h.box.open(record!.secretCiphertext)).toBe(created.secret);
    expect(h.box.open(record!.apiKeyCiphertext)).toBe(created.api_key);

    const { secret: _s, api_key: _k, ...plain } = created;
    const got = await call('GET', `/v1/webhook-endpoints/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(plain);
    expect(got.body).not.toContain(created.secret);
    expect((await call('GET', '/v1/webhook-endpoints')).json()).toEqual({ data: [plain] });

    h.clock.advance(1000);
    const patched = await call('PATCH', `/v1/webhook-endpoints/${created.id}`, { events: [], enabled: false, description: null });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({ ...plain, events: [], enabled: false, description: null, updated_at: '2026-01-01T00:00:01.000Z' });
    expect(patched.body).not.toContain('api_key');

    expect((await call('DELETE', `/v1/webhook-endpoints/${created.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/v1/webhook-endpoints/${created.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/webhook-endpoints/${created.id}`)).statusCode).toBe(404);
    expect((await call('PATCH', `/v1/webhook-endpoints/${created.id}`, { enabled: true })).statusCode).toBe(404);
  });

  it('keeps a given api_key and a publisher scope', async () => {
    h = await createWebhookHarness();
    const { publisher } = await h.publishers.create({ name: 'p' });
    const res = await call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/h', api_key: 'partner-key-1', publisher_id: publisher.id });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ api_key: 'partner-key-1', publisher_id: publisher.id });
  });

  it('answers 400 naming the field', async () => {
    h = await createWebhookHarness();
    const base = { url: 'http://127.0.0.1:9/h' };
    const cases: Array<[unknown, string]> = [
      [{}, 'url'],
      [{ url: 42 }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://127.0.0.1/h' }, 'url'],
      [{ ...base, events: ['auction.complete', 'auction.started'] }, 'events[1]'],
      [{ ...base, events: 'auction.complete' }, 'events'],
      [{ ...base, publisher_id: 'pub_missing' }, 'publisher_id'],
      [{ ...base, publisher_id: 7 }, 'publisher_id'],
      [{ ...base, api_key: 'has space' }, 'api_key'],
      [{ ...base, api_key: '' }, 'api_key'],
      [{ ...base, enabled: 'yes' }, 'enabled'],
      [{ ...base, description: 5 }, 'description'],
    ];
    for (const [payload, field] of cases) {
      const res = await call('POST', '/v1/webhook-endpoints', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors.map((e: { field: string }) => e.field), JSON.stringify(payload)).toContain(field);
    }
    expect(await h.store.webhookEndpoints.list()).toEqual([]);
  });

  it('refuses non-https and non-public targets unless private targets are allowed (SSRF)', async () => {
    h = await createWebhookHarness({ allowPrivateTargets: false });
    const refused = [
      'http://127.0.0.1:9/h',
      'http://public.example/h',
      'https://127.0.0.1/h',
      'https://10.0.0.1/h',
      'https://[::1]/h',
      'https://localhost/h',
      'https://169.254.169.254/latest',
      'https://rebind.example/h',
    ];
    for (const url of refused) {
      const res = await call('POST', '/v1/webhook-endpoints', { url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors, url).toEqual([{ field: 'url', message: expect.stringMatching(/^is not an allowed webhook target: /) }]);
    }
    expect((await call('POST', '/v1/webhook-endpoints', { url: 'https://public.example/hooks' })).statusCode).toBe(201);
    const { id } = (await call('POST', '/v1/webhook-endpoints', { url: 'https://93.184.216.34/hooks' })).json();
    // The rule applies to a PATCH too.
    const patch = await call('PATCH', `/v1/webhook-endpoints/${id}`, { url: 'https://10.0.0.1/h' });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().errors[0].field).toBe('url');
  });

  it('rotates the secret (200 {secret}), the old one signing for 24 h more', async () => {
    h = await createWebhookHarness();
    const created = (await call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/h' })).json();
    h.clock.advance(5000);
    const res = await call('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const { secret } = res.json();
    expect(Object.keys(res.json())).toEqual(['secret']);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);
    const record = (await h.store.webhookEndpoints.get(created.id))!;
    expect(h.box.open(record.secretCiphertext)).toBe(secret);
    expect(h.box.open(record.previousSecretCiphertext!)).toBe(created.secret);
    expect(record.previousSecretExpiresAtMs).toBe(h.clock.now() + 24 * 3600 * 1000);
    expect((await call('POST', '/v1/webhook-endpoints/ep_missing/rotate-secret')).statusCode).toBe(404);
  });

  it('sends a test event (202 {message_id}), 409 when disabled, and shows it in the deliveries', async () => {
    h = await createWebhookHarness();
    const { id } = (await call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/h', events: ['billing.notice'] })).json();
    h.clock.advance(1000);
    const res = await call('POST', `/v1/webhook-endpoints/${id}/test`);
    expect(res.statusCode).toBe(202);
    const { message_id } = res.json();
    expect(message_id).toMatch(/^msg_/);
    const stored = await h.store.outbox.get(message_id);
    expect(stored).toMatchObject({ endpointId: id, eventKind: 'webhook.test', status: 'pending', attempts: 0 });
    expect(stored!.body).toBe(`{"event":"webhook.test","endpoint_id":"${id}","timestamp":"2026-01-01T00:00:01.000Z"}`);

    const deliveries = await call('GET', `/v1/webhook-endpoints/${id}/deliveries`);
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json()).toEqual({
      data: [
        {
          id: message_id,
          event: 'webhook.test',
          status: 'pending',
          attempts: 0,
          next_attempt_at: '2026-01-01T00:00:01.000Z',
          created_at: '2026-01-01T00:00:01.000Z',
          delivered_at: null,
          last_error: null,
          attempt_log: [],
        },
      ],
    });

    expect((await call('PATCH', `/v1/webhook-endpoints/${id}`, { enabled: false })).statusCode).toBe(200);
    const refused = await call('POST', `/v1/webhook-endpoints/${id}/test`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ type: 'https://adx.dev/problems/conflict', status: 409 });
    expect((await call('POST', '/v1/webhook-endpoints/ep_missing/test')).statusCode).toBe(404);
  });

  it('lists deliveries with their attempt log, filters by status, replays one and recovers failures', async () => {
    h = await createWebhookHarness();
    const { id } = (await call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/h' })).json();
    const first = (await call('POST', `/v1/webhook-endpoints/${id}/test`)).json().message_id;
    h.clock.advance(1000);
    const second = (await call('POST', `/v1/webhook-endpoints/${id}/test`)).json().message_id;
    const t1 = h.clock.now();
    // The first message failed for good after one attempt (the dispatcher's part, written by hand).
    await h.store.outbox.recordAttempt(
      { messageId: first, attempt: 1, startedAtMs: t1, durationMs: 12, statusCode: 500, error: 'HTTP 500', responseExcerpt: 'oops', nextAttemptAtMs: null },
      { status: 'failed', attempts: 1, nextAttemptAtMs: t1, deliveredAtMs: null, lastError: 'HTTP 500' },
    );

    const all = (await call('GET', `/v1/webhook-endpoints/${id}/deliveries`)).json().data;
    expect(all.map((d: { id: string }) => d.id)).toEqual([second, first]);
    expect(all[1]).toEqual({
      id: first,
      event: 'webhook.test',
      status: 'failed',
      attempts: 1,
      next_attempt_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
      delivered_at: null,
      last_error: 'HTTP 500',
      attempt_log: [
        { attempt: 1, started_at: '2026-01-01T00:00:01.000Z', duration_ms: 12, status_code: 500, error: 'HTTP 500', response_excerpt: 'oops', next_attempt_at: null },
      ],
    });
    const failed = (await call('GET', `/v1/webhook-endpoints/${id}/deliveries?status=failed&limit=10`)).json().data;
    expect(failed.map((d: { id: string }) => d.id)).toEqual([first]);
    expect((await call('GET', `/v1/webhook-endpoints/${id}/deliveries?limit=1`)).json().data).toHaveLength(1);
    for (const query of ['status=lost', 'limit=0', 'limit=5000', 'limit=x']) {
      const bad = await call('GET', `/v1/webhook-endpoints/${id}/deliveries?${query}`);
      expect(bad.statusCode, query).toBe(400);
      expect(bad.json().errors[0].field, query).toBe(query.split('=')[0]);
    }
    expect((await call('GET', '/v1/webhook-endpoints/ep_missing/deliveries')).statusCode).toBe(404);

    // Recover: failures created since a time become pending again.
    const recover = await call('POST', `/v1/webhook-endpoints/${id}/recover`, { since: '2026-01-01T00:00:00Z' });
    expect(recover.statusCode).toBe(200);
    expect(recover.json()).toEqual({ recovered: 1 });
    expect(await h.store.outbox.get(first)).toMatchObject({ status: 'pending', nextAttemptAtMs: h.clock.now() });
    expect((await call('POST', `/v1/webhook-endpoints/${id}/recover`, { since: '2026-01-01T00:00:00Z' })).json()).toEqual({ recovered: 0 });
    for (const since of ['yesterday', '2026-01-01', '2026-01-01T00:00:00', 5]) {
      const bad = await call('POST', `/v1/webhook-endpoints/${id}/recover`, { since });
      expect(bad.statusCode, String(since)).toBe(400);
      expect(bad.json().errors[0].field).toBe('since');
    }

    // Replay: one message, due now again.
    h.clock.advance(60_000);
    const replay = await call('POST', `/v1/webhook-endpoints/${id}/deliveries/${second}/replay`);
    expect(replay.statusCode).toBe(202);
    expect(replay.json()).toEqual({ message_id: second });
    expect(await h.store.outbox.get(second)).toMatchObject({ status: 'pending', nextAttemptAtMs: h.clock.now() });
    expect((await call('POST', `/v1/webhook-endpoints/${id}/deliveries/msg_missing/replay`)).statusCode).toBe(404);

    // A disabled endpoint accepts replay and recover: the messages wait until it is enabled again.
    await call('PATCH', `/v1/webhook-endpoints/${id}`, { enabled: false });
    expect((await call('POST', `/v1/webhook-endpoints/${id}/deliveries/${second}/replay`)).statusCode).toBe(202);
    expect((await call('POST', `/v1/webhook-endpoints/${id}/recover`, { since: '2026-01-01T00:00:00Z' })).statusCode).toBe(200);
  });

  it('answers 401 without the admin key on every route', async () => {
    h = await createWebhookHarness();
    const routes: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string]> = [
      ['POST', '/v1/webhook-endpoints'],
      ['GET', '/v1/webhook-endpoints'],
      ['GET', '/v1/webhook-endpoints/ep_1'],
      ['PATCH', '/v1/webhook-endpoints/ep_1'],
      ['DELETE', '/v1/webhook-endpoints/ep_1'],
      ['POST', '/v1/webhook-endpoints/ep_1/rotate-secret'],
      ['POST', '/v1/webhook-endpoints/ep_1/test'],
      ['GET', '/v1/webhook-endpoints/ep_1/deliveries'],
      ['POST', '/v1/webhook-endpoints/ep_1/deliveries/msg_1/replay'],
      ['POST', '/v1/webhook-endpoints/ep_1/recover'],
    ];
    for (const [method, url] of routes) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
        const res = await h.app.inject({ method, url, headers, payload: method === 'POST' || method === 'PATCH' ? { url: 'http://127.0.0.1:9/h' } : undefined });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
      }
    }
    expect(await h.store.webhookEndpoints.list()).toEqual([]);
  });
});
