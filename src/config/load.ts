/**
 * Configuration loading: defaults <- config file (`ADX_CONFIG`, JSON or YAML) <- environment.
 * Pure apart from reading the file: the environment is passed in (only `main.ts` reads
 * `process.env`). Validation (`validateConfig`) reports every problem at once.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { defaults } from './defaults.js';
import type { Config, SeedConfig } from './types.js';
import { validateConfig } from './validate.js';

/** Environment variables and the config key each one sets (README "Configuration" lists them). */
export const ENV_KEYS = {
  PORT: 'server.port',
  HOST: 'server.host',
  ADX_PUBLIC_URL: 'server.publicUrl',
  ADX_HEAP_GROWING_PERCENT: 'server.heapGrowingPercent',
  DATABASE_URL: 'storage.databaseUrl',
  ADX_ADMIN_KEY: 'security.adminKey',
  ADX_SECRET_KEY: 'security.secretKey',
  ADX_EXCHANGE_DOMAIN: 'exchange.domain',
  ADX_CONTACT_EMAIL: 'exchange.contactEmail',
  ADX_CONTACT_ADDRESS: 'exchange.contactAddress',
  ADX_TAKE_RATE: 'auction.takeRate',
  ADX_MAX_TMAX_MS: 'auction.maxTmaxMs',
  ADX_TMAX_MARGIN_MS: 'auction.tmaxMarginMs',
  ADX_WEBHOOK_RETRY_SCHEDULE_MS: 'webhooks.retryScheduleMs',
  ADX_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'webhooks.allowPrivateTargets',
  ADX_ALERT_INTERVAL_MS: 'reporting.alertIntervalMs',
  ADX_REVENUE_MILESTONES: 'reporting.revenueMilestones',
  ADX_SERIES_MINUTE_RETENTION_DAYS: 'reporting.seriesMinuteRetentionDays',
  LOG_LEVEL: 'log.level',
} as const;

/** Thrown when configuration is invalid; `problems` lists every one. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep-merges `override` into a copy of `base` (objects merge, everything else replaces). */
export function mergeConfig<T>(base: T, override: unknown): T {
  if (!isObject(base) || !isObject(override)) return (override === undefined ? base : override) as T;
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    out[key] = key in out && isObject(out[key]) && isObject(value) ? mergeConfig(out[key], value) : value;
  }
  return out as T;
}

function setPath(target: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[keys[keys.length - 1]!] = value;
}

const NUMERIC_KEYS = new Set(['server.port', 'server.heapGrowingPercent', 'auction.takeRate', 'auction.maxTmaxMs', 'auction.tmaxMarginMs', 'reporting.alertIntervalMs', 'reporting.seriesMinuteRetentionDays']);

/** Parses a config file's text (JSON when it starts with `{`, else YAML). @throws ConfigError */
export function parseConfigText(text: string, name: string): Json {
  try {
    const parsed: unknown = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text);
    if (parsed === null || parsed === undefined) return {};
    if (!isObject(parsed)) throw new Error('the top level must be an object');
    return parsed;
  } catch (error) {
    throw new ConfigError([`${name}: ${(error as Error).message}`]);
  }
}

/**
 * Builds the config from the environment. `ADX_CONFIG`: unset = the bundled demo seed
 * (`bundledSeed`), `none` = no seed and no file, else a file path whose keys override the
 * defaults (its `seed` section, if any, is the seed).
 * @throws ConfigError listing every problem.
 */
export async function loadConfig(env: Record<string, string | undefined>, bundledSeed: SeedConfig | null): Promise<Config> {
  let config: Config = mergeConfig(defaults as Config, {});
  const configFile = env.ADX_CONFIG;
  if (configFile === undefined || configFile === '') {
    config.seed = bundledSeed;
  } else if (configFile !== 'none') {
    let text: string;
    try {
      text = await readFile(configFile, 'utf8');
    } catch (error) {
      throw new ConfigError([`ADX_CONFIG: cannot read ${configFile}: ${(error as Error).message}`]);
    }
    config = mergeConfig(config, parseConfigText(text, configFile));
  }
  const overrides: Json = {};
  const problems: string[] = [];
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (path === 'webhooks.retryScheduleMs') {
      const delays = raw.split(',').map((part) => Number(part.trim()));
      if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 0)) problems.push(`${name}: ${JSON.stringify(raw)} is not a comma-separated list of non-negative integers (ms)`);
      else setPath(overrides, path, delays);
    } else if (path === 'reporting.revenueMilestones') {
      const amounts = raw.split(',').map((part) => Number(part.trim()));
      if (amounts.some((a) => !Number.isFinite(a) || a <= 0)) problems.push(`${name}: ${JSON.stringify(raw)} is not a comma-separated list of positive amounts`);
      else setPath(overrides, path, amounts);
    } else if (path === 'webhooks.allowPrivateTargets') {
      if (raw !== '0' && raw !== '1' && raw !== 'true' && raw !== 'false') problems.push(`${name}: must be 1 or 0`);
      else setPath(overrides, path, raw === '1' || raw === 'true');
    } else if (NUMERIC_KEYS.has(path)) {
      const value = Number(raw);
      if (!Number.isFinite(value)) problems.push(`${name}: ${JSON.stringify(raw)} is not a number`);
      else setPath(overrides, path, value);
    } else {
      setPath(overrides, path, raw);
    }
  }
  config = mergeConfig(config, overrides);
  if (!config.server.publicUrl) config.server.publicUrl = `http://${config.server.host}:${config.server.port}`;
  config.server.publicUrl = config.server.publicUrl.replace(/\/+$/, '');
  problems.push(...validateConfig(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
