/** Config loading: defaults, file and environment precedence, every problem reported at once. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeed } from '../src/config/demo-seed.js';
import { ConfigError, loadConfig } from '../src/config/load.js';

describe('loadConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses the defaults and the bundled seed when ADX_CONFIG is unset', async () => {
    const config = await loadConfig({}, demoSeed);
    expect(config.server.port).toBe(8080);
    expect(config.server.publicUrl).toBe('http://127.0.0.1:8080');
    expect(config.auction.defaultTmaxMs).toBe(100);
    expect(config.seed).toBe(demoSeed);
  });

  it('ADX_CONFIG=none starts without a seed', async () => {
    expect((await loadConfig({ ADX_CONFIG: 'none' }, demoSeed)).seed).toBeNull();
  });

  it('a YAML file overrides defaults and the environment overrides the file', async () => {
    const file = join(dir, 'adx.yaml');
    await writeFile(file, 'server:\n  port: 9000\nauction:\n  takeRate: 0.1\n  tmaxMarginMs: 15\n');
    const config = await loadConfig({ ADX_CONFIG: file, PORT: '9100', ADX_PUBLIC_URL: 'https://adx.example.com/' }, demoSeed);
    expect(config.server.port).toBe(9100);
    expect(config.auction.takeRate).toBe(0.1);
    expect(config.auction.tmaxMarginMs).toBe(15);
    expect(config.auction.maxTmaxMs).toBe(1000);
    expect(config.server.publicUrl).toBe('https://adx.example.com');
    expect(config.seed).toBeNull();
  });

  it('reports every problem at once', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ auction: { takeRate: 1.5, maxTmaxMs: -1 }, server: { publicUrl: 'ftp://x' } }));
    const error = await loadConfig({ ADX_CONFIG: file, PORT: 'abc' }, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('auction.takeRate');
    expect(problems).toContain('auction.maxTmaxMs');
    expect(problems).toContain('server.publicUrl');
  });

  it('reads the sellers.json contact from the environment and checks the privacy seed fields', async () => {
    const ok = await loadConfig({ ADX_CONFIG: 'none', ADX_CONTACT_EMAIL: 'sellers@adx.example', ADX_CONTACT_ADDRESS: '1 Main St' }, null);
    expect(ok.exchange).toMatchObject({ contactEmail: 'sellers@adx.example', contactAddress: '1 Main St' });
    const file = join(dir, 'privacy.json');
    await writeFile(
      file,
      JSON.stringify({
        exchange: { contactEmail: 'not an email' },
        seed: {
          publishers: [{ name: 'p', seller_type: 'SELLER', is_confidential: 'yes' }],
          demand_partners: [{ name: 'd', endpoint: 'http://127.0.0.1:9', openrtb_version: '3.0', gvl_vendor_id: 0 }],
        },
      }),
    );
    const error = await loadConfig({ ADX_CONFIG: file }, null).catch((e: unknown) => e);
    const problems = (error as ConfigError).problems.join('\n');
    for (const key of ['exchange.contactEmail', 'seed.publishers[0].seller_type', 'seed.publishers[0].is_confidential', 'seed.demand_partners[0].openrtb_version', 'seed.demand_partners[0].gvl_vendor_id']) {
      expect(problems).toContain(key);
    }
  });

  it("reads V8's heap growing percent from the environment and refuses a negative one", async () => {
    expect((await loadConfig({ ADX_CONFIG: 'none' }, null)).server.heapGrowingPercent).toBe(0);
    expect((await loadConfig({ ADX_CONFIG: 'none', ADX_HEAP_GROWING_PERCENT: '150' }, null)).server.heapGrowingPercent).toBe(150);
    const error = await loadConfig({ ADX_CONFIG: 'none', ADX_HEAP_GROWING_PERCENT: '-5' }, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join('\n')).toMatch(/server\.heapGrowingPercent/);
  });

  it('ignores prototype keys in files', async () => {
    const file = join(dir, 'proto.json');
    await writeFile(file, '{"__proto__": {"polluted": true}, "log": {"level": "warn"}}');
    const config = await loadConfig({ ADX_CONFIG: file }, null);
    expect(config.log.level).toBe('warn');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
