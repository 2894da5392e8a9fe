import type { SeedConfig } from './types.js';

/**
 * The bundled demo seed, used by `npm start` when `ADX_CONFIG` is unset: one demo publisher
 * with a fixed, documented API key (so the README's curl works at once; never use it in
 * production) and three demand partners backed by simulated DSPs the exchange starts on
 * loopback.
 */
export const demoSeed: SeedConfig = {
  publishers: [
    {
      name: 'Demo Publisher',
      domain: 'localhost',
      domains: ['localhost', '127.0.0.1'],
      browser_access: true,
      api_key: 'adxk_demo_publisher_key_do_not_use_in_production',
    },
  ],
  demand_partners: [
    { name: 'sim-alpha', currency: 'USD', timeout_ms: 1000, simulate: { bidProbability: 0.9, cpmMin: 0.5, cpmMax: 4, latencyMs: '2-15' } },
    // Takes banner and native only: video and audio imps are offered to the other two.
    { name: 'sim-beta', currency: 'EUR', timeout_ms: 1000, gzip: true, media_types: ['banner', 'native'], simulate: { bidProbability: 0.7, cpmMin: 0.8, cpmMax: 3, latencyMs: '5-30', currency: 'EUR' } },
    { name: 'sim-gamma', currency: 'USD', timeout_ms: 1000, simulate: { bidProbability: 0.5, cpmMin: 1, cpmMax: 6, latencyMs: '10-60' } },
  ],
};
