import { readVast } from '../dist/auction/vast.js';
import { readMarkup, bidMediaType } from '../dist/auction/creative.js';
import { buildServedMarkup } from '../dist/auction/served-markup.js';
const url = 'https://adx.example.com/v1/notice/impression?t=eyJ2IjoxfQ.SIG';
const macros = { priceMicros: 1_800_000, currency: 'USD', impId: '1', bidId: 'dsp-b1' };
const cases = {
  banner: [{ id: '1', banner: { w: 300, h: 250 } }, '<a href="https://brand.example/"><img src="https://cdn.dsp.example/300x250.png"></a><img src="https://dsp.example/imp?p=${AUCTION_PRICE}" width="1" height="1">'],
  video: [{ id: '1', video: { mimes: ['video/mp4'] } }, `<?xml version="1.0" encoding="UTF-8"?>
<VAST version="4.2" xmlns="http://www.iab.com/VAST">
  <Ad id="a1">
    <InLine>
      <AdSystem>dsp.example</AdSystem>
      <AdTitle>Spring sale</AdTitle>
      <Impression id="dsp"><![CDATA[https://dsp.example/imp?p=\${AUCTION_PRICE}]]></Impression>
      <Creatives>
        <Creative>
          <Linear>
            <Duration>00:00:15</Duration>
            <TrackingEvents>
              <Tracking event="firstQuartile"><![CDATA[https://dsp.example/q1]]></Tracking>
            </TrackingEvents>
            <MediaFiles>
              <MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[https://cdn.dsp.example/a1.mp4]]></MediaFile>
            </MediaFiles>
          </Linear>
        </Creative>
      </Creatives>
    </InLine>
  </Ad>
</VAST>`],
  audio: [{ id: '1', audio: { mimes: ['audio/mp4'] } }, `<VAST version="3.0"><Ad><Wrapper><AdSystem>dsp.example</AdSystem><VASTAdTagURI><![CDATA[https://dsp.example/audio.xml]]></VASTAdTagURI><Impression><![CDATA[https://dsp.example/imp/audio]]></Impression></Wrapper></Ad></VAST>`],
  native: [{ id: '1', native: { request: '{"ver":"1.2","assets":[]}' } }, JSON.stringify({ native: { ver: '1.2', assets: [{ id: 1, title: { text: 'Spring sale' } }, { id: 2, img: { url: 'https://cdn.dsp.example/1200x627.jpg', w: 1200, h: 627 } }, { id: 3, data: { value: 'Brand' } }], link: { url: 'https://brand.example/' }, eventtrackers: [{ event: 1, method: 1, url: 'https://dsp.example/imp' }] } })],
};
for (const [name, [imp, adm]] of Object.entries(cases)) {
  const judged = bidMediaType({ adm }, imp);
  const markup = readMarkup(adm, judged);
  console.log(`=== ${name} (${judged.type})\n${buildServedMarkup(adm, markup, url, macros)}\n`);
}
