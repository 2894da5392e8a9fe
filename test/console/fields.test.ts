/**
 * The console's form rules (`console/src/fields.ts`) against the API they mirror: fields are
 * derived from the running exchange's own `/v1/openapi.json`, and every value the console refuses
 * in the browser, the API refuses too (400 naming the same field), while what it accepts is
 * created (201). Also the report CSV (`console/src/csv.ts`). Pure functions, run in Node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCsv } from '../../console/src/csv.js';
import { buildBody, fieldsOf, labelOf, rawOf, type JsonSchema, type RawValue } from '../../console/src/fields.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

describe('console form fields from the OpenAPI document', () => {
  let ex: TestExchange;
  let doc: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>> };
  const schemaOf = (method: string, path: string) => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;

  beforeAll(async () => {
    ex = await startTestExchange();
    doc = (await (await fetch(`${ex.url}/v1/openapi.json`)).json()) as typeof doc;
  });
  afterAll(async () => {
    await ex.close();
  });

  it('derives controls, labels and required marks from the body schema', () => {
    const fields = fieldsOf(schemaOf('post', '/v1/demand-partners'), { order: ['name', 'endpoint'] });
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(fields.slice(0, 2).map((f) => f.name)).toEqual(['name', 'endpoint']);
    expect(byName.name).toMatchObject({ kind: 'text', required: true, label: 'Name' });
    expect(byName.timeout_ms).toMatchObject({ kind: 'number', required: false, label: 'Timeout (ms)' });
    expect(byName.gzip).toMatchObject({ kind: 'checkbox' });
    expect(byName.qps_limit).toMatchObject({ kind: 'number', nullable: true, label: 'QPS limit' });
    const publisher = Object.fromEntries(fieldsOf(schemaOf('post', '/v1/publishers')).map((f) => [f.name, f]));
    expect(publisher.auction_type).toMatchObject({ kind: 'select', options: [{ label: '1', value: 1 }, { label: '2', value: 2 }] });
    expect(publisher.domains).toMatchObject({ kind: 'list' });
    const endpoint = Object.fromEntries(fieldsOf(schemaOf('post', '/v1/webhook-endpoints')).map((f) => [f.name, f]));
    expect(endpoint.events!.kind).toBe('checkboxes');
    expect(labelOf('publisher_id')).toBe('Publisher ID');
  });

  it('refuses in the browser exactly what the API refuses, naming the same field', async () => {
    const fields = fieldsOf(schemaOf('post', '/v1/demand-partners'));
    const base: Record<string, RawValue> = { name: 'Partner', endpoint: 'http://127.0.0.1:9/bid' };
    const cases: Array<[Record<string, RawValue>, string | null]> = [
      [{}, null],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ currency: 'usd' }, 'currency'],
      [{ currency: 'EUR' }, null],
      [{ timeout_ms: '0' }, 'timeout_ms'],
      [{ timeout_ms: '12.5' }, 'timeout_ms'],
      [{ timeout_ms: '250' }, null],
      [{ qps_limit: '' }, null],
      [{ qps_limit: '-3' }, 'qps_limit'],
      [{ gzip: true }, null],
    ];
    for (const [overrides, field] of cases) {
      const { body, errors } = buildBody(fields, { ...base, ...overrides }, {});
      const label = JSON.stringify(overrides);
      if (field === null) {
        expect(errors, label).toEqual({});
        const res = await ex.admin('POST', '/v1/demand-partners', body);
        expect(res.status, label).toBe(201);
      } else {
        expect(Object.keys(errors), label).toEqual([field]);
        // The same value sent as the console would have sent it, had it not checked.
        const raw = { ...body, [field]: field === 'timeout_ms' || field === 'qps_limit' ? Number(overrides[field]) : overrides[field] };
        const res = await ex.admin('POST', '/v1/demand-partners', raw);
        expect(res.status, label).toBe(400);
        expect(res.json().errors.map((e: { field: string }) => e.field), label).toContain(field);
      }
    }
  });

  it('sends only changed fields on an edit, null for a cleared nullable field', () => {
    const fields = fieldsOf(schemaOf('patch', '/v1/demand-partners/{id}'));
    const current = { name: 'Partner', endpoint: 'http://x/bid', timeout_ms: 1000, gzip: false, qps_limit: 50, currency: 'USD', enabled: true };
    const initial = Object.fromEntries(fields.map((f) => [f.name, rawOf(f, current[f.name as keyof typeof current])]));
    const { body, errors } = buildBody(fields, { ...initial, qps_limit: '', enabled: false }, initial, { changedOnly: true });
    expect(errors).toEqual({});
    expect(body).toEqual({ qps_limit: null, enabled: false });
  });
});

describe('report CSV', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    const csv = toCsv(['a', 'b', 'c'], [
      { a: 'plain', b: 1.5, c: null },
      { a: 'with, comma', b: 'say "hi"', c: '=HYPERLINK("x")' },
      { a: -2, b: 'line\nbreak', c: '@sum' },
    ]);
    expect(csv).toBe('a,b,c\r\nplain,1.5,\r\n"with, comma","say ""hi""","\'=HYPERLINK(""x"")"\r\n-2,"line\nbreak",\'@sum\r\n');
  });
});
