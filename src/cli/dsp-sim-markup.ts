/**
 * Markup the simulated DSP answers with, per media type (IAB VAST 4.2; OpenRTB Native Ads API
 * 1.2): a VAST 4 InLine for video and audio with a media file, an impression and the quartile
 * trackers pointing back at the simulator, and a Native 1.2 response filling the request's
 * title, image and data (sponsoredBy, description) assets with a link. Test data only: it holds
 * no exchange logic and only imports OpenRTB types.
 */
import type { Imp } from '../domain/openrtb.js';

/** What the markup needs to know about the simulator and the bid. */
export interface SimMarkupContext {
  /** The simulator's base URL (trackers and media point here). */
  base: string;
  /** The simulator's name (advertiser domain, titles). */
  name: string;
  /** `${AUCTION_PRICE}` and `${AUCTION_BID_ID}` macros, for the impression tracker. */
  priceMacro: string;
  bidMacro: string;
}

/** Quartile and completion events of a linear ad (VAST 4.2 section 3.14.1). */
const LINEAR_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const;

/** The ad duration, seconds: 15 when the imp allows it, else the nearest bound of its min/max duration. */
export function durationFor(media: Record<string, unknown> | undefined): number {
  const min = typeof media?.minduration === 'number' && media.minduration > 0 ? media.minduration : 0;
  const max = typeof media?.maxduration === 'number' && media.maxduration > 0 ? media.maxduration : Infinity;
  return Math.max(min, Math.min(15, max));
}

function hhmmss(seconds: number): string {
  const pad = (n: number) => String(Math.floor(n)).padStart(2, '0');
  return `${pad(seconds / 3600)}:${pad((seconds % 3600) / 60)}:${pad(seconds % 60)}.000`;
}

/**
 * A VAST 4.2 InLine ad: AdSystem, AdTitle, an `<Impression>` and `<Error>` to the simulator,
 * one Linear creative of `durationS` seconds with the quartile trackers and one progressive
 * media file (`video/mp4` 640x360, or `audio/mp4` for audio) served by the simulator at `/media`.
 */
export function vastFor(kind: 'video' | 'audio', durationS: number, ctx: SimMarkupContext, n: number): string {
  const { base, name } = ctx;
  const tracking = LINEAR_EVENTS.map((e) => `<Tracking event="${e}"><![CDATA[${base}/track?event=${e}&bid=${ctx.bidMacro}]]></Tracking>`).join('');
  const media =
    kind === 'video'
      ? `<MediaFile delivery="progressive" type="video/mp4" width="640" height="360" bitrate="500"><![CDATA[${base}/media/ad.mp4]]></MediaFile>`
      : `<MediaFile delivery="progressive" type="audio/mp4" bitrate="128"><![CDATA[${base}/media/ad.m4a]]></MediaFile>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="${name}-ad-${n}"><InLine>` +
    `<AdSystem version="1">${name}</AdSystem><AdTitle>${name} ${kind} ad ${n}</AdTitle>` +
    `<AdServingId>${name}-${n}</AdServingId>` +
    `<Impression id="${name}"><![CDATA[${base}/pixel?price=${ctx.priceMacro}&bid=${ctx.bidMacro}]]></Impression>` +
    `<Error><![CDATA[${base}/track?event=error&code=[ERRORCODE]]]></Error>` +
    `<Creatives><Creative id="${name}-creative-${kind}" adId="${name}-ad-${n}"><Linear>` +
    `<Duration>${hhmmss(durationS)}</Duration><TrackingEvents>${tracking}</TrackingEvents>` +
    `<VideoClicks><ClickThrough><![CDATA[https://${name}-advertiser.example/]]></ClickThrough></VideoClicks>` +
    `<MediaFiles>${media}</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`
  );
}

interface NativeRequestAsset {
  id?: unknown;
  title?: { len?: unknown };
  img?: { type?: unknown; w?: unknown; h?: unknown; wmin?: unknown; hmin?: unknown };
  data?: { type?: unknown };
}

/** The Native 1.2 request of an imp (a JSON string, or an object; with or without a `native` wrapper), or undefined. */
function nativeRequestOf(imp: Imp): { assets?: NativeRequestAsset[] } | undefined {
  let request: unknown = imp.native?.request;
  if (typeof request === 'string') {
    try {
      request = JSON.parse(request);
    } catch {
      return undefined;
    }
  }
  if (typeof request !== 'object' || request === null) return undefined;
  const inner = (request as { native?: unknown }).native;
  return (typeof inner === 'object' && inner !== null ? inner : request) as { assets?: NativeRequestAsset[] };
}

const num = (v: unknown, fallback: number): number => (typeof v === 'number' && v > 0 ? v : fallback);

/**
 * A Native 1.2 response (bare, section 5.1) answering each asset the request asks for: title
 * text, an image (the main image at the asked size), data `sponsoredBy` (type 1) and `desc`
 * (type 2); a link to the advertiser and an impression event tracker to the simulator. A request
 * without assets gets a title, an image and sponsoredBy.
 */
export function nativeFor(imp: Imp, ctx: SimMarkupContext, n: number): string {
  const { base, name } = ctx;
  const requested = nativeRequestOf(imp)?.assets;
  const wanted: NativeRequestAsset[] = Array.isArray(requested) && requested.length > 0 ? requested : [{ id: 1, title: {} }, { id: 2, img: { type: 3 } }, { id: 3, data: { type: 1 } }];
  const assets: Array<Record<string, unknown>> = [];
  for (const asset of wanted) {
    const id = typeof asset.id === 'number' ? asset.id : assets.length + 1;
    if (asset.title) {
      const text = `${name}: the ad number ${n}`;
      assets.push({ id, title: { text: text.slice(0, num(asset.title.len, 90)) } });
    } else if (asset.img) {
      const w = num(asset.img.w, num(asset.img.wmin, asset.img.type === 1 ? 80 : 1200));
      const h = num(asset.img.h, num(asset.img.hmin, asset.img.type === 1 ? 80 : 627));
      assets.push({ id, img: { url: `${base}/media/image-${w}x${h}.png`, w, h } });
    } else if (asset.data) {
      const type = asset.data.type;
      assets.push({ id, data: { value: type === 1 ? `${name} advertiser` : type === 2 ? `Simulated native ad from ${name}` : `${name}` } });
    }
  }
  return JSON.stringify({
    ver: '1.2',
    assets,
    link: { url: `https://${name}-advertiser.example/landing?ad=${n}` },
    eventtrackers: [{ event: 1, method: 1, url: `${base}/pixel?price=${ctx.priceMacro}&bid=${ctx.bidMacro}` }],
  });
}
