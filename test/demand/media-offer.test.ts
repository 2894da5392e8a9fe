import { describe, expect, it } from 'vitest';
import { offerByMediaType } from '../../src/demand/media-offer.js';
import type { BidRequest, Imp } from '../../src/domain/openrtb.js';
import type { MediaType } from '../../src/domain/media-type.js';

const banner = { w: 300, h: 250 };
const video = { mimes: ['video/mp4'], w: 640, h: 360 };
const audio = { mimes: ['audio/mp4'] };
const native = { request: '{"ver":"1.2","assets":[]}', ver: '1.2' };

const request: BidRequest = {
  id: 'r1',
  imp: [
    { id: 'b', banner, bidfloor: 1 },
    { id: 'bv', banner, video, bidfloor: 2, bidfloorcur: 'EUR', pmp: { deals: [{ id: 'd1' }] } },
    { id: 'a', audio },
    { id: 'n', native },
  ],
  site: { page: 'https://pub.example/' },
};

const typesOf = (imp: Imp): string[] => (['banner', 'video', 'audio', 'native'] as const).filter((t) => imp[t] !== undefined);

describe('offerByMediaType (DESIGN section 5: each partner gets the imps offering a type it takes)', () => {
  const cases: Array<{ name: string; takes: MediaType[]; imps: Record<string, string[]> | null }> = [
    { name: 'all four: the request as it is', takes: ['banner', 'video', 'audio', 'native'], imps: { b: ['banner'], bv: ['banner', 'video'], a: ['audio'], n: ['native'] } },
    { name: 'banner only: the banner+video imp reduced to its banner', takes: ['banner'], imps: { b: ['banner'], bv: ['banner'] } },
    { name: 'video only: the banner+video imp reduced to its video', takes: ['video'], imps: { bv: ['video'] } },
    { name: 'audio and native', takes: ['audio', 'native'], imps: { a: ['audio'], n: ['native'] } },
    { name: 'banner and video: the multi-format imp kept whole', takes: ['banner', 'video'], imps: { b: ['banner'], bv: ['banner', 'video'] } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const offered = offerByMediaType(request, c.takes);
      expect(offered).not.toBeNull();
      expect(Object.fromEntries(offered!.imp.map((imp) => [imp.id, typesOf(imp)]))).toEqual(c.imps);
    });
  }

  it('keeps floors, deals and the rest of the request; never mutates the input', () => {
    const before = structuredClone(request);
    const offered = offerByMediaType(request, ['video'])!;
    expect(offered.imp[0]).toEqual({ id: 'bv', video, bidfloor: 2, bidfloorcur: 'EUR', pmp: { deals: [{ id: 'd1' }] } });
    expect(offered.site).toBe(request.site);
    expect(offered.id).toBe('r1');
    expect(request).toEqual(before);
  });

  it('answers the same request object when the partner takes everything offered', () => {
    expect(offerByMediaType(request, ['banner', 'video', 'audio', 'native'])).toBe(request);
    const bannerOnly: BidRequest = { id: 'r2', imp: [{ id: 'x', banner }] };
    expect(offerByMediaType(bannerOnly, ['banner', 'native'])).toBe(bannerOnly);
  });

  it('answers null when no imp offers a type the partner takes', () => {
    expect(offerByMediaType({ id: 'r3', imp: [{ id: 'x', banner }] }, ['video', 'audio'])).toBeNull();
  });
});
