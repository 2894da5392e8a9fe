import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bidMediaType, inferMediaType } from '../../src/auction/creative.js';
import { addNativeImpression, readNativeMarkup } from '../../src/auction/native-markup.js';
import { addVastImpression, readVast, type VastMarkup } from '../../src/auction/vast.js';
import { LossReason, type Imp } from '../../src/domain/openrtb.js';
import { bannerImp, bidRequest, only, partnerBid, run } from './helpers.js';

const vastFixture = (name: string): string => readFileSync(new URL(`../fixtures/vast/${name}`, import.meta.url), 'utf8');

const IMP_URL = 'https://adx.example/v1/notice/impression?t=eyJ0b2tlbiI6MX0.c2ln';
const TRACKER = `<Impression><![CDATA[${IMP_URL}]]></Impression>`;

const videoImp: Imp = { id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360 } };
const audioImp: Imp = { id: '1', audio: { mimes: ['audio/mp4'] } };
const nativeImp: Imp = { id: '1', native: { request: '{"ver":"1.2","assets":[{"id":1,"title":{"len":90}}]}', ver: '1.2' } };
const bannerVideoImp: Imp = { id: '1', banner: { w: 300, h: 250 }, video: { mimes: ['video/mp4'] } };
const everythingImp: Imp = { id: '1', banner: { w: 300, h: 250 }, video: { mimes: ['video/mp4'] }, audio: { mimes: ['audio/mp4'] }, native: { request: '{}' } };

const VAST_MIN = '<VAST version="4.0"><Ad><InLine><AdSystem>d</AdSystem><Impression><![CDATA[https://dsp.example/i]]></Impression></InLine></Ad></VAST>';
const NATIVE_BARE = JSON.stringify({ ver: '1.2', assets: [{ id: 1, title: { text: 'Hello' } }], link: { url: 'https://brand.example/' } });
const NATIVE_WRAPPED = JSON.stringify({ native: { ver: '1.2', assets: [{ id: 1, title: { text: 'Hello' } }], link: { url: 'https://brand.example/' } } });

describe('inferMediaType (DESIGN section 4: a bid without mtype)', () => {
  const cases: Array<[string, string | undefined, Imp, string]> = [
    ['VAST alone', VAST_MIN, everythingImp, 'video'],
    ['VAST after an XML declaration', `<?xml version="1.0" encoding="UTF-8"?>\n${VAST_MIN}`, videoImp, 'video'],
    ['VAST after a byte-order mark and whitespace', `\uFEFF \n\t<?xml version="1.0"?>${VAST_MIN}`, videoImp, 'video'],
    ['VAST after comments', `<?xml version="1.0"?><!-- served by dsp --><!--2-->\n${VAST_MIN}`, videoImp, 'video'],
    ['VAST after a DOCTYPE with an internal subset (dropped later with 3)', vastFixture('billion-laughs.xml'), videoImp, 'video'],
    ['VAST on an audio-only imp is audio', VAST_MIN, audioImp, 'audio'],
    ['VAST on an imp offering video and audio is video', VAST_MIN, { id: '1', video: { mimes: ['video/mp4'] }, audio: { mimes: ['audio/mp4'] } }, 'video'],
    ['native with the outer native object', NATIVE_WRAPPED, everythingImp, 'native'],
    ['native without the wrapper (assets)', NATIVE_BARE, everythingImp, 'native'],
    ['native with leading whitespace', `  ${NATIVE_BARE}`, everythingImp, 'native'],
    ['a JSON object without native or assets is banner', '{"html":"<div></div>"}', everythingImp, 'banner'],
    ['HTML', '<div><img src="https://cdn.example/a.png"></div>', everythingImp, 'banner'],
    ['HTML mentioning <VAST later', '<div>about <VAST version="3.0"></div>', everythingImp, 'banner'],
    ['a script tag', '<script src="https://cdn.example/tag.js"></script>', everythingImp, 'banner'],
    ['<VASTly is not VAST', '<VASTly/>', everythingImp, 'banner'],
    ['broken JSON is banner', '{"native":', everythingImp, 'banner'],
    ['no markup on a video-only imp: the imp type', undefined, videoImp, 'video'],
    ['no markup on a multi-format imp: banner', undefined, bannerVideoImp, 'banner'],
  ];
  for (const [name, adm, imp, expected] of cases) {
    it(name, () => expect(inferMediaType(adm, imp)).toBe(expected));
  }

  it('mtype wins over the markup; an mtype outside 1-4 is invalid', () => {
    expect(bidMediaType({ mtype: 1, adm: VAST_MIN }, everythingImp)).toEqual({ type: 'banner' });
    expect(bidMediaType({ mtype: 2, adm: '<div/>' }, everythingImp)).toEqual({ type: 'video' });
    expect(bidMediaType({ mtype: 3, adm: VAST_MIN }, everythingImp)).toEqual({ type: 'audio' });
    expect(bidMediaType({ mtype: 4, adm: NATIVE_BARE }, everythingImp)).toEqual({ type: 'native' });
    expect(bidMediaType({ mtype: 5, adm: '<div/>' }, everythingImp)).toBe('invalid');
    expect(bidMediaType({ mtype: '2', adm: VAST_MIN }, everythingImp)).toBe('invalid');
  });
});

/** Checks that `out` is `adm` with exactly the tracker inserted at each point. */
function expectOnlyTrackersAdded(adm: string, out: string, count: number): void {
  expect(out.split(TRACKER).length - 1).toBe(count);
  expect(out.split(TRACKER).join('')).toBe(adm);
}

describe('VAST: the exchange Impression in every InLine and Wrapper ad', () => {
  it('VAST 2 InLine: after the partner Impression, CDATA kept byte for byte', () => {
    const adm = vastFixture('vast2-inline.xml');
    const vast = readVast(adm) as VastMarkup;
    expect(vast.version).toBe('2.0');
    const out = addVastImpression(adm, vast, IMP_URL);
    expectOnlyTrackersAdded(adm, out, 1);
    expect(out).toContain(`<Impression><![CDATA[https://dsp.example/imp?id=1&price=\${AUCTION_PRICE}&x=<a>]]></Impression>${TRACKER}`);
  });

  it('VAST 3 Wrapper with two Impressions and a split CDATA: after the last one', () => {
    const adm = vastFixture('vast3-wrapper.xml');
    const vast = readVast(adm) as VastMarkup;
    const out = addVastImpression(adm, vast, IMP_URL);
    expectOnlyTrackersAdded(adm, out, 1);
    expect(out).toContain(`<![CDATA[https://verifier.example/p?z=]]]]><![CDATA[>]]></Impression>${TRACKER}<Creatives/>`);
  });

  it('VAST 4 pod (InLine + Wrapper): one tracker per ad; an Impression inside Extensions is not the ad\'s', () => {
    const adm = vastFixture('vast4-pod.xml');
    const vast = readVast(adm) as VastMarkup;
    expect(vast.version).toBe('4.2');
    expect(vast.insertAt).toHaveLength(2);
    const out = addVastImpression(adm, vast, IMP_URL);
    expectOnlyTrackersAdded(adm, out, 2);
    expect(out).toContain(`<![CDATA[https://dsp.example/imp/1]]></Impression>${TRACKER}`);
    expect(out).toContain(`<![CDATA[https://dsp.example/imp/2]]></Impression>${TRACKER}`);
    expect(out).toContain('<Impression>not a tracker of the ad</Impression></Extension>');
    // Still VAST with three trackers per the parser.
    expect(readVast(out)).toMatchObject({ version: '4.2' });
  });

  it('an ad without an Impression gets one after AdSystem, or after its start tag', () => {
    const a = '<VAST version="3.0"><Ad><InLine><AdSystem>x</AdSystem><AdTitle>t</AdTitle></InLine></Ad></VAST>';
    expect(addVastImpression(a, readVast(a) as VastMarkup, IMP_URL)).toBe(`<VAST version="3.0"><Ad><InLine><AdSystem>x</AdSystem>${TRACKER}<AdTitle>t</AdTitle></InLine></Ad></VAST>`);
    const b = '<VAST version="3.0"><Ad><Wrapper><VASTAdTagURI>u</VASTAdTagURI></Wrapper></Ad></VAST>';
    expect(addVastImpression(b, readVast(b) as VastMarkup, IMP_URL)).toBe(`<VAST version="3.0"><Ad><Wrapper>${TRACKER}<VASTAdTagURI>u</VASTAdTagURI></Wrapper></Ad></VAST>`);
  });

  it('offsets stay right after a BOM, leading whitespace and non-ASCII text', () => {
    const adm = `\uFEFF\n  <?xml version="1.0"?><VAST version="4.1"><Ad><InLine><AdSystem>café 😀</AdSystem><Impression/></InLine></Ad></VAST>`;
    const out = addVastImpression(adm, readVast(adm) as VastMarkup, IMP_URL);
    expect(out).toBe(`\uFEFF\n  <?xml version="1.0"?><VAST version="4.1"><Ad><InLine><AdSystem>café 😀</AdSystem><Impression/>${TRACKER}</InLine></Ad></VAST>`);
  });

  const refused: Array<[string, string, string]> = [
    ['billion laughs', vastFixture('billion-laughs.xml'), 'doctype'],
    ['external entities', vastFixture('external-entity.xml'), 'doctype'],
    ['a DOCTYPE without a subset', '<!DOCTYPE VAST SYSTEM "http://127.0.0.1:9/vast.dtd"><VAST version="3.0"><Ad><InLine/></Ad></VAST>', 'doctype'],
    ['an undeclared entity', '<VAST version="3.0"><Ad><InLine><AdSystem>&lol;</AdSystem></InLine></Ad></VAST>', 'malformed'],
    ['not well-formed', '<VAST version="3.0"><Ad><InLine></Ad></VAST>', 'malformed'],
    ['HTML', '<div>video</div>', 'not_vast'],
    ['VAST 1', '<VAST version="1.0"><Ad><InLine/></Ad></VAST>', 'unsupported_version'],
    ['VAST 5', '<VAST version="5.0"><Ad><InLine/></Ad></VAST>', 'unsupported_version'],
    ['no version', '<VAST><Ad><InLine/></Ad></VAST>', 'unsupported_version'],
    ['an empty VAST (no ad)', '<VAST version="4.0"/>', 'no_ad'],
    ['junk after the root', `${VAST_MIN}<x/>`, 'malformed'],
  ];
  for (const [name, adm, problem] of refused) {
    it(`refuses ${name}: ${problem}`, () => expect(readVast(adm)).toBe(problem));
  }

  it('billion laughs and external entities are refused without expanding anything: fast, memory flat', () => {
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 2000; i++) {
      expect(readVast(vastFixture('billion-laughs.xml'))).toBe('doctype');
      expect(readVast(vastFixture('external-entity.xml'))).toBe('doctype');
    }
    // 10^9 "lol"s expanded would be gigabytes; a few MB of garbage is the parsers' own.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('native: the exchange impression event tracker', () => {
  it('bare response: eventtrackers gets {event: 1, method: 1, url}; partner trackers kept', () => {
    const adm = JSON.stringify({ ver: '1.2', assets: [{ id: 1 }], link: { url: 'https://b.example' }, eventtrackers: [{ event: 1, method: 1, url: 'https://dsp.example/i' }] });
    const out = JSON.parse(addNativeImpression(readNativeMarkup(adm)!, IMP_URL));
    expect(out.eventtrackers).toEqual([
      { event: 1, method: 1, url: 'https://dsp.example/i' },
      { event: 1, method: 1, url: IMP_URL },
    ]);
    expect(out).not.toHaveProperty('imptrackers');
    expect(out.assets).toEqual([{ id: 1 }]);
  });

  it('wrapped response is served bare (Native 1.2 form); imptrackers gets the URL when the response uses them', () => {
    const adm = JSON.stringify({ native: { ver: '1.1', assets: [{ id: 1 }], link: { url: 'https://b.example' }, imptrackers: ['https://dsp.example/i'] } });
    const out = JSON.parse(addNativeImpression(readNativeMarkup(adm)!, IMP_URL));
    expect(out).not.toHaveProperty('native');
    expect(out.assets).toEqual([{ id: 1 }]);
    expect(out.imptrackers).toEqual(['https://dsp.example/i', IMP_URL]);
    expect(out.eventtrackers).toEqual([{ event: 1, method: 1, url: IMP_URL }]);
  });

  it('refuses what is not a Native 1.2 response', () => {
    for (const adm of ['not json', '[]', '{"native": 3}', '{"native": {"link": {}}}', '{"assets": [], "eventtrackers": {}}', '{"assets": [], "link": "x"}']) {
      expect(readNativeMarkup(adm), adm).toBeUndefined();
    }
    expect(readNativeMarkup('{"assetsurl": "https://dsp.example/a.json", "link": {"url": "u"}}')).toBeDefined();
  });
});

describe('holdAuction with media types', () => {
  const vastBid = (over = {}) => partnerBid(2, { adm: VAST_MIN, w: undefined, h: undefined, ...over });

  it('multi-format imp (banner+video): a video bid wins as video, a banner bid as banner', () => {
    const request = bidRequest({ imp: [bannerVideoImp] });
    const video = only(run({ request, bids: [vastBid({ id: 'v' }), partnerBid(1, { id: 'b' })] }));
    expect(video.winner?.partnerBid.bid.id).toBe('v');
    expect(video.winner?.mediaType).toBe('video');
    expect(video.winner?.markup).toMatchObject({ type: 'video' });
    const banner = only(run({ request, bids: [vastBid({ id: 'v', price: 1 }), partnerBid(3, { id: 'b' })] }));
    expect(banner.winner?.partnerBid.bid.id).toBe('b');
    expect(banner.winner?.mediaType).toBe('banner');
  });

  it('video sizes are not checked; a banner bid on a video-only imp gets 204; mtype 1 with VAST on a video imp gets 204', () => {
    const request = bidRequest({ imp: [videoImp] });
    const result = only(run({ request, bids: [vastBid({ id: 'v', w: 1, h: 1 }), partnerBid(5, { id: 'b' }), vastBid({ id: 'm', mtype: 1, price: 9 })] }));
    expect(result.winner?.partnerBid.bid.id).toBe('v');
    expect(Object.fromEntries(result.losers.map((l) => [l.partnerBid.bid.id, l.lossReason]))).toEqual({
      b: LossReason.creativeFilteredIncorrectFormat,
      m: LossReason.creativeFilteredIncorrectFormat,
    });
  });

  it('VAST with a DOCTYPE, bad VAST and bad native markup are dropped with 3; an mtype outside 1-4 too', () => {
    const request = bidRequest({ imp: [everythingImp] });
    const result = only(
      run({
        request,
        bids: [
          vastBid({ id: 'laughs', adm: vastFixture('billion-laughs.xml'), price: 9 }),
          vastBid({ id: 'xxe', adm: vastFixture('external-entity.xml'), price: 9 }),
          partnerBid(9, { id: 'html-as-video', mtype: 2 }),
          partnerBid(9, { id: 'bad-native', mtype: 4, adm: '{"native": {"title": "x"}}' }),
          partnerBid(9, { id: 'mtype-9', mtype: 9 }),
          vastBid({ id: 'ok' }),
        ],
      }),
    );
    expect(result.winner?.partnerBid.bid.id).toBe('ok');
    for (const loser of result.losers) expect(loser.lossReason, String(loser.partnerBid.bid.id)).toBe(LossReason.invalidBidResponse);
    expect(result.losers).toHaveLength(5);
  });

  it('audio: VAST on an audio imp wins as audio; native on a native imp as native', () => {
    const audio = only(run({ request: bidRequest({ imp: [audioImp] }), bids: [vastBid()] }));
    expect(audio.winner?.mediaType).toBe('audio');
    const native = only(run({ request: bidRequest({ imp: [nativeImp] }), bids: [partnerBid(1, { adm: NATIVE_WRAPPED, w: undefined, h: undefined })] }));
    expect(native.winner?.mediaType).toBe('native');
    expect(native.winner?.markup).toMatchObject({ type: 'native', native: { wrapped: true } });
  });

  it('secure imp: a VAST namespace and an http ClickThrough load nothing; an http MediaFile gets 207', () => {
    const secureVideo: Imp = { ...videoImp, secure: 1 };
    const vast = (media: string) =>
      `<VAST version="4.0" xmlns="http://www.iab.com/VAST" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><Ad><InLine><AdSystem>d</AdSystem><Impression><![CDATA[https://dsp.example/i]]></Impression><Creatives><Creative><Linear><VideoClicks><ClickThrough><![CDATA[http://brand.example/]]></ClickThrough></VideoClicks><MediaFiles><MediaFile type="video/mp4"><![CDATA[${media}]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;
    const ok = only(run({ request: bidRequest({ imp: [secureVideo] }), bids: [vastBid({ adm: vast('https://cdn.example/a.mp4') })] }));
    expect(ok.winner?.mediaType).toBe('video');
    const insecure = only(run({ request: bidRequest({ imp: [secureVideo] }), bids: [vastBid({ adm: vast('http://cdn.example/a.mp4') })] }));
    expect(insecure.losers[0]?.lossReason).toBe(LossReason.creativeFilteredNotSecure);
  });

  it('banner rules stay as they were: a wrong size is still 203', () => {
    const result = only(run({ request: bidRequest({ imp: [bannerImp()] }), bids: [partnerBid(1, { w: 728, h: 90 })] }));
    expect(result.losers[0]?.lossReason).toBe(LossReason.creativeFilteredSizeNotAllowed);
  });
});
