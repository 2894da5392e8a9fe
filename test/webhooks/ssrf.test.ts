import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  FORBIDDEN_ADDRESS_CODE,
  checkWebhookTarget,
  checkWebhookUrl,
  createGuardedLookup,
  isForbiddenAddress,
  resolveAndCheck,
  type ResolveAll,
} from '../../src/webhooks/ssrf.js';

describe('isForbiddenAddress', () => {
  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.1.2.3',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.10',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
  ])('forbids IPv4 %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '198.17.255.255', '198.20.0.0', '223.255.255.255', '11.0.0.1'])(
    'allows public IPv4 %s',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
    },
  );

  it.each([
    '::',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    'ff0e::abcd',
    '2001:db8::1',
    '2001:0db8:85a3::8a2e:0370:7334',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.1.2.3',
    '::ffff:169.254.169.254',
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::1',
    '2002:c0a8:0101::1',
    '::127.0.0.1',
    '100::1',
  ])('forbids IPv6 %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '2002:0808:0808::1', '2a00:1450:4001:81a::200e'])(
    'allows public IPv6 %s',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
    },
  );

  it.each(['', 'example.com', '1.2.3', '1.2.3.256', '::1::1', '1:2:3:4:5:6:7:8:9', 'gggg::1'])('fails closed on the non-address %j', (text) => {
    expect(isForbiddenAddress(text)).toBe(true);
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowPrivateTargets: false };
  const relaxed = { allowPrivateTargets: true };

  it('accepts https to a name or a public literal', () => {
    expect(checkWebhookUrl('https://partner.example/hooks', strict)).toEqual({ ok: true });
    expect(checkWebhookUrl('https://8.8.8.8/hooks', strict)).toEqual({ ok: true });
    expect(checkWebhookUrl('https://[2606:4700:4700::1111]:8443/', strict)).toEqual({ ok: true });
  });

  it.each([
    ['http://partner.example/hooks', /https/],
    ['ftp://partner.example/', /https/],
    ['not a url', /absolute URL/],
    ['https://127.0.0.1/', /not a public address/],
    ['https://2130706433/', /127\.0\.0\.1/],
    ['https://0x7f.1/', /127\.0\.0\.1/],
    ['https://[::1]/', /not a public address/],
    ['https://[::ffff:127.0.0.1]/', /not a public address/],
    ['https://[fe80::1]/', /not a public address/],
    ['https://169.254.169.254/latest/meta-data', /not a public address/],
    ['https://localhost:8443/', /localhost/],
    ['https://api.localhost/', /localhost/],
  ])('refuses %s', (url, reason) => {
    const check = checkWebhookUrl(url, strict);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toMatch(reason);
  });

  it('with allowPrivateTargets, accepts http and loopback but still not other schemes', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9000/hooks', relaxed)).toEqual({ ok: true });
    expect(checkWebhookUrl('http://localhost:9000/', relaxed)).toEqual({ ok: true });
    expect(checkWebhookUrl('file:///etc/passwd', relaxed).ok).toBe(false);
  });
});

/** A stub resolver answering fixed addresses per name (no DNS). */
function stubResolver(table: Record<string, string[]>): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const resolve: ResolveAll = async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

function lookupAsync(lookup: ReturnType<typeof createGuardedLookup>, hostname: string, options: object): Promise<{ address: unknown; family?: number }> {
  return new Promise((resolve, reject) => {
    lookup(hostname, options, (error, address, family) => (error ? reject(error) : resolve({ address, family })));
  });
}

describe('guardedLookup (connect time)', () => {
  const resolveAll = stubResolver({
    'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.example': ['93.184.216.34', '10.0.0.5'],
    'mapped.example': ['::ffff:192.168.0.1'],
    'loopback.example': ['127.0.0.1'],
  });
  const lookup = createGuardedLookup({ resolveAll });

  it('answers every address when asked for all', async () => {
    const { address } = await lookupAsync(lookup, 'public.example', { all: true });
    expect(address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  it('answers the first address and family otherwise', async () => {
    expect(await lookupAsync(lookup, 'public.example', {})).toEqual({ address: '93.184.216.34', family: 4 });
  });

  it.each(['rebind.example', 'mapped.example', 'loopback.example'])('fails %s, which resolves to a forbidden address', async (hostname) => {
    await expect(lookupAsync(lookup, hostname, { all: true })).rejects.toMatchObject({ code: FORBIDDEN_ADDRESS_CODE });
    await expect(lookupAsync(lookup, hostname, {})).rejects.toThrow(/not a public address/);
  });

  it('passes resolver errors through', async () => {
    await expect(lookupAsync(lookup, 'nowhere.example', {})).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('judges an IP literal without resolving it', async () => {
    const before = resolveAll.calls.length;
    await expect(lookupAsync(lookup, '10.1.1.1', {})).rejects.toMatchObject({ code: FORBIDDEN_ADDRESS_CODE });
    expect(await lookupAsync(lookup, '8.8.8.8', {})).toEqual({ address: '8.8.8.8', family: 4 });
    expect(resolveAll.calls.length).toBe(before);
  });

  it('refuses localhost through the real system resolver', async () => {
    await expect(lookupAsync(createGuardedLookup(), 'localhost', { all: true })).rejects.toMatchObject({ code: FORBIDDEN_ADDRESS_CODE });
  });
});

describe('resolveAndCheck and checkWebhookTarget (registration time)', () => {
  const resolveAll = stubResolver({ 'public.example': ['93.184.216.34'], 'internal.example': ['93.184.216.34', 'fd00::1'] });

  it('accepts a public name, refuses one with any private address', async () => {
    expect(await resolveAndCheck('public.example', { resolveAll })).toEqual({ ok: true });
    const check = await resolveAndCheck('internal.example', { resolveAll });
    expect(check).toEqual({ ok: false, reason: expect.stringMatching(/fd00::1/) });
  });

  it('accepts a name that does not resolve (the connect-time check still applies)', async () => {
    expect(await resolveAndCheck('not-yet.example', { resolveAll })).toEqual({ ok: true });
  });

  it('judges literals and localhost without a resolver', async () => {
    expect((await resolveAndCheck('[::1]')).ok).toBe(false);
    expect((await resolveAndCheck('localhost')).ok).toBe(false);
    expect(await resolveAndCheck('1.1.1.1')).toEqual({ ok: true });
  });

  it('checkWebhookTarget combines the URL and the resolution', async () => {
    expect(await checkWebhookTarget('https://public.example/h', { allowPrivateTargets: false, resolveAll })).toEqual({ ok: true });
    expect((await checkWebhookTarget('https://internal.example/h', { allowPrivateTargets: false, resolveAll })).ok).toBe(false);
    expect((await checkWebhookTarget('http://public.example/h', { allowPrivateTargets: false, resolveAll })).ok).toBe(false);
    expect(await checkWebhookTarget('http://internal.example/h', { allowPrivateTargets: true, resolveAll })).toEqual({ ok: true });
  });
});
