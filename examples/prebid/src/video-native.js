/**
 * The Prebid.js bundle for the adx video and native example page (video-native.html): Prebid.js
 * core from the npm `prebid.js` 11.x package (video with `cache.useLocal` and native are in
 * core), its Prebid Server adapter, and Dailymotion's VAST client (`@dailymotion/vast-client`)
 * as `window.adxVast`, which the page uses to read the VAST it gets and fire its impression
 * trackers, as a player does. Bundled by `build.mjs` into `dist/prebid-video-native-bundle.js`.
 */
import pbjs from 'prebid.js';
import 'prebid.js/modules/prebidServerBidAdapter';
import { VASTParser } from '@dailymotion/vast-client';

window.adxVast = { VASTParser };
pbjs.processQueue();
