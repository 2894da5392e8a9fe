/**
 * The Prebid.js bundle for the adx example page: Prebid.js core from the npm `prebid.js` 11.x
 * package plus its Prebid Server adapter (the `s2sConfig` path that sends OpenRTB 2.5 from the
 * page straight to adx's `POST /v1/openrtb/2.5/bidrequest`). Bundled by `build.mjs` with
 * esbuild into `dist/prebid-bundle.js`, which defines the `pbjs` global (Prebid's default
 * build option) and then runs every `pbjs.que` callback the page queued before it loaded.
 */
import pbjs from 'prebid.js';
import 'prebid.js/modules/prebidServerBidAdapter';

pbjs.processQueue();
