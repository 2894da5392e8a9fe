/** Types for build.mjs (the test imports it from TypeScript). */

/** Absolute path of the bundle the page loads (examples/prebid/dist/prebid-bundle.js). */
export declare const bundlePath: string;

/**
 * Bundles src/main.js (Prebid.js 11 + its Prebid Server adapter) with esbuild into an IIFE at
 * `bundlePath`; `minify` defaults to true. Resolves to the output path and its size in bytes;
 * rejects with esbuild's error when the build fails.
 */
export declare function buildPrebidBundle(options?: { minify?: boolean }): Promise<{ outfile: string; bytes: number }>;

/** Absolute path of the video and native page's bundle (examples/prebid/dist/prebid-video-native-bundle.js). */
export declare const videoNativeBundlePath: string;

/**
 * Bundles src/video-native.js (Prebid.js 11, its Prebid Server adapter and @dailymotion/vast-client
 * as `window.adxVast`) into an IIFE at `videoNativeBundlePath`; as `buildPrebidBundle` otherwise.
 */
export declare function buildVideoNativeBundle(options?: { minify?: boolean }): Promise<{ outfile: string; bytes: number }>;
