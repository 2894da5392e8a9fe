/** The error catalog and docs/errors.md list the same codes, statuses and titles (STYLE 5). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCatalog, problemBody } from '../src/domain/errors.js';

const doc = readFileSync(resolve(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8');

describe('error catalog', () => {
  const rows = new Map<string, { status: number; title: string }>();
  for (const line of doc.split('\n')) {
    const m = /^\| `([a-z_]+)` \| (\d{3}) \| ([^|]+) \|/.exec(line);
    if (m) rows.set(m[1]!, { status: Number(m[2]), title: m[3]!.trim() });
  }

  it('every catalog entry is documented with its status and title', () => {
    for (const [code, entry] of Object.entries(ErrorCatalog)) {
      expect(rows.get(code), code).toEqual({ status: entry.status, title: entry.title });
    }
  });

  it('the docs list no code the catalog lacks', () => {
    for (const code of rows.keys()) expect(Object.keys(ErrorCatalog)).toContain(code);
  });

  it('problem bodies follow RFC 9457 fields', () => {
    const body = problemBody('invalid_request', 'bad', { errors: [{ field: 'id', message: 'missing' }], nbr: 2 });
    expect(body).toEqual({ type: 'https://adx.dev/problems/invalid_request', title: 'Invalid request', status: 400, detail: 'bad', errors: [{ field: 'id', message: 'missing' }], nbr: 2 });
  });
});
