import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openrtb25Adapter } from './index.js';
import { describeAdapterFixtures, fixtureContext } from '../../../../test/helpers/adapter-fixtures.js';
import { describeCorpus } from '../../../../test/helpers/conformance.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

describeAdapterFixtures(openrtb25Adapter, join(fixtures, 'exemplary'));
describeAdapterFixtures(openrtb25Adapter, join(fixtures, 'supplemental'));

describe('openrtb25 adapter', () => {
  it('has the code partners name in their adapter field', () => {
    expect(openrtb25Adapter.code).toBe('openrtb25');
  });

  it('shares unchanged objects instead of deep-cloning them', () => {
    const device = { ua: 'x', ip: '203.0.113.1' };
    const imp = { id: '1', banner: { w: 300, h: 250 } };
    const request = { id: 'r', imp: [imp], device, site: { id: 's' } };
    const built = openrtb25Adapter.buildRequests(request, fixtureContext());
    const body = built.requests[0]?.body;
    expect(body?.device).toBe(device);
    expect(body?.site).toBe(request.site);
    expect(body?.imp[0]).toBe(imp);
    expect(request.imp[0]).toBe(imp);
  });

  it('mints a new id per call', () => {
    const ctx = fixtureContext();
    const request = { id: 'r', imp: [{ id: '1', banner: { w: 1, h: 1 } }] };
    const a = openrtb25Adapter.buildRequests(request, ctx).requests[0]?.body.id;
    const b = openrtb25Adapter.buildRequests(request, ctx).requests[0]?.body.id;
    expect(a).toBe('req_1');
    expect(b).toBe('req_2');
  });
});

describeCorpus('openrtb25 parseBids over the conformance example responses', ['openrtb25', 'responses'], (dir) => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

  it('finds responses', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`${file} parses with bids and no error`, () => {
      const ctx = fixtureContext();
      const sent = { method: 'POST' as const, uri: ctx.partner.endpoint, headers: {}, body: { id: 'req_1', imp: [] } };
      const text = readFileSync(join(dir, file), 'utf8');
      const { bids, errors } = openrtb25Adapter.parseBids(sent, { status: 200, headers: { 'content-type': 'application/json' }, body: text }, ctx);
      expect(errors).toEqual([]);
      expect(bids.length).toBeGreaterThan(0);
      const response = JSON.parse(text) as { cur?: string; seatbid: Array<{ seat?: string; bid: unknown[] }> };
      expect(bids.map((b) => b.bid)).toEqual(response.seatbid.flatMap((s) => s.bid));
      for (const b of bids) expect(b.currency).toBe(response.cur ?? 'USD');
      expect(bids.map((b) => b.seat)).toEqual(response.seatbid.flatMap((s) => s.bid.map(() => s.seat ?? ctx.partner.id)));
    });
  }
});
