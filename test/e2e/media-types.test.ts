/**
 * Every media type end to end (DESIGN sections 2, 4 and 5): real fake DSPs on loopback answer
 * banner, video (VAST), audio (VAST) and native; the exchange offers each partner only the types
 * in its `media_types`, answers `mtype`, `ext.prebid.type` and `dur`, adds its impression tracker
 * to the VAST and the native response, and an impression fired from the VAST counts like a
 * banner pixel.
 */
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDsp, type FakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange, type TestExchange } from '../helpers/exchange.js';

const VAST = readFileSync(new URL('../fixtures/vast/vast4-pod.xml', import.meta.url), 'utf8');
const NATIVE = { native: { ver: '1.2', assets: [{ id: 1, title: { text: 'Hi' } }], link: { url: 'https://brand.example/' }, eventtrackers: [{ event: 1, method: 1, url: 'https://dsp.example/i' }] } };

/** Answers each imp it is offered with markup of the first type the imp offers. */
function answerEveryImp(body: any, price: number) {
  const bid = body.imp.map((imp: any, i: number) => {
    const base = { id: `b${i}`, impid: imp.id, price, crid: `cr-${imp.id}`, adomain: ['brand.example'] };
    if (imp.banner) return { ...base, adm: '<div>banner</div>', w: 300, h: 250 };
    if (imp.video) return { ...base, adm: VAST, dur: 30, w: 640, h: 360 };
    if (imp.audio) return { ...base, adm: VAST, dur: 15, mtype: 3 };
    return { ...base, adm: JSON.stringify(NATIVE) };
  });
  return { id: body.id, cur: 'USD', seatbid: [{ seat: 's', bid }] };
}

const request4 = {
  id: 'mt-1',
  imp: [
    { id: 'b', banner: { w: 300, h: 250 } },
    { id: 'v', video: { mimes: ['video/mp4'], w: 640, h: 360 } },
    { id: 'a', audio: { mimes: ['audio/mp4'] } },
    { id: 'n', native: { request: JSON.stringify({ ver: '1.2', assets: [{ id: 1, required: 1, title: { len: 90 } }] }), ver: '1.2' } },
  ],
  site: { domain: 'pub.example', page: 'https://pub.example/', publisher: { id: 'p1' } },
  tmax: 500,
};

describe('media types end to end', () => {
  let everything: FakeDsp;
  let videoOnly: FakeDsp;
  let ex: TestExchange;

  beforeAll(async () => {
    everything = await startFakeDsp((body: any) => ({ status: 200, body: answerEveryImp(body, 1) }));
    videoOnly = await startFakeDsp((body: any) => ({ status: 200, body: answerEveryImp(body, 2) }));
    ex = await startTestExchange({
      partners: [
        { name: 'all', endpoint: everything.url },
        { name: 'video-only', endpoint: videoOnly.url, media_types: ['video'] },
      ],
    });
  });
  afterAll(async () => {
    await ex?.close();
    await everything?.close();
    await videoOnly?.close();
  });

  it('offers each partner the imps of its media types, reduced to them', async () => {
    const res = await ex.bid({ ...request4, id: 'mt-offer', imp: [...request4.imp, { id: 'bv', banner: { w: 300, h: 250 }, video: { mimes: ['video/mp4'] } }] });
    expect(res.status).toBe(200);
    const sentAll = everything.requests.at(-1)!.body as any;
    expect(sentAll.imp.map((i: any) => i.id)).toEqual(['b', 'v', 'a', 'n', 'bv']);
    const sentVideo = videoOnly.requests.at(-1)!.body as any;
    expect(sentVideo.imp.map((i: any) => i.id)).toEqual(['v', 'bv']);
    expect(sentVideo.imp[1]).not.toHaveProperty('banner');
    expect(sentVideo.imp[1].video).toEqual({ mimes: ['video/mp4'] });
  });

  it('answers every type with mtype, ext.prebid.type, dur, and the impression tracker in the markup', async () => {
    const res = await ex.bid(request4);
    expect(res.status).toBe(200);
    const bids = new Map<string, any>(res.json().seatbid.flatMap((s: any) => s.bid.map((b: any) => [b.impid, { ...b, seat: s.seat }])));
    expect([...bids.keys()].sort()).toEqual(['a', 'b', 'n', 'v']);
    const impUrl = new RegExp(`${ex.url}/v1/notice/impression\\?t=[A-Za-z0-9_-]+`);

    const banner = bids.get('b');
    expect(banner).toMatchObject({ mtype: 1, ext: { prebid: { type: 'banner' } }, w: 300, h: 250 });
    expect(banner).not.toHaveProperty('dur');
    expect(banner.adm).toMatch(impUrl);

    const video = bids.get('v');
    expect(video).toMatchObject({ mtype: 2, ext: { prebid: { type: 'video' } }, dur: 30, w: 640, h: 360, seat: ex.partnerIds[1] });
    expect(video.price).toBe(2);
    const trackers = [...video.adm.matchAll(/<Impression><!\[CDATA\[([^\]]+)\]\]><\/Impression>/g)].map((m: RegExpMatchArray) => m[1]);
    expect(trackers.filter((u) => u !== undefined && impUrl.test(u))).toHaveLength(2); // one per ad of the pod
    expect(video.adm.replace(/<Impression><!\[CDATA\[[^\]]*notice\/impression[^\]]*\]\]><\/Impression>/g, '')).toBe(VAST);

    const audio = bids.get('a');
    expect(audio).toMatchObject({ mtype: 3, ext: { prebid: { type: 'audio' } }, dur: 15 });
    expect(audio.adm).toMatch(impUrl);

    const native = bids.get('n');
    expect(native).toMatchObject({ mtype: 4, ext: { prebid: { type: 'native' } } });
    const adm = JSON.parse(native.adm);
    expect(adm).not.toHaveProperty('native'); // served in the bare Native 1.2 form
    expect(adm.eventtrackers[0]).toEqual({ event: 1, method: 1, url: 'https://dsp.example/i' });
    expect(adm.eventtrackers[1]).toMatchObject({ event: 1, method: 1, url: expect.stringMatching(impUrl) });
  });

  it('the impression URL in the VAST counts and bills like a banner pixel, once', async () => {
    const res = await ex.bid({ ...request4, id: 'mt-imp', imp: [request4.imp[1]] });
    const video = res.json().seatbid[0].bid[0];
    const url = /<Impression><!\[CDATA\[([^\]]*notice\/impression[^\]]*)\]\]>/.exec(video.adm)![1]!;
    const before = (await ex.admin('GET', '/v1/stats')).json().totals;
    for (const _ of [1, 2]) {
      const hit = await request(url);
      expect(hit.statusCode).toBe(200);
      expect(hit.headers['content-type']).toBe('image/gif');
      await hit.body.dump();
    }
    const after = (await ex.admin('GET', '/v1/stats')).json().totals;
    expect(after.impressions - before.impressions).toBe(1);
    expect(after.revenue_net - before.revenue_net).toBeCloseTo(0.002, 9); // 2.00 CPM, first price, no take rate
  });

  it('seat-non-bid says 202 (unsupported media type) for the imps a partner was not offered', async () => {
    const res = await ex.bid({ ...request4, id: 'mt-snb', imp: [{ ...request4.imp[0], bidfloor: 50 }, { ...request4.imp[1], bidfloor: 50 }], ext: { prebid: { returnallbidstatus: true } } });
    expect(res.status).toBe(200);
    const seatnonbid = res.json().ext.seatnonbid;
    const videoSeat = seatnonbid.find((s: any) => s.seat === ex.partnerIds[1]);
    expect(videoSeat.nonbid).toEqual([
      { impid: 'b', statuscode: 202 },
      { impid: 'v', statuscode: 301, ext: { loss: 100 } },
    ]);
  });

  it('a request with nothing a partner takes calls nobody and gets 204', async () => {
    const ex2 = await startTestExchange({ partners: [{ name: 'banner-only', endpoint: everything.url, media_types: ['banner'] }] });
    try {
      const before = everything.requests.length;
      const res = await ex2.bid({ ...request4, id: 'mt-none', imp: [request4.imp[1], request4.imp[3]] });
      expect(res.status).toBe(204);
      expect(everything.requests.length).toBe(before);
    } finally {
      await ex2.close();
    }
  });
});
