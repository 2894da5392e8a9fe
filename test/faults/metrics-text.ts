/**
 * Reading counters from the exchange's Prometheus text (`GET /metrics`) in tests, so fault tests
 * observe what an operator would see.
 */
import { request } from 'undici';

/** One sample: metric name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text exposition format lines (`name{a="b",...} value`); comments are skipped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include every pair of `labels` (0 when none). */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) total += s.value;
  }
  return total;
}

/** Fetches and parses `<baseUrl>/metrics`. */
export async function scrape(baseUrl: string): Promise<Sample[]> {
  const res = await request(`${baseUrl}/metrics`);
  return parseMetrics(await res.body.text());
}
