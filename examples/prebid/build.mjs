#!/usr/bin/env node
/**
 * Bundles the example's Prebid.js (src/main.js) with esbuild into dist/prebid-bundle.js, an
 * IIFE for `<script async src="dist/prebid-bundle.js">`.
 *
 * As a module: `import { buildPrebidBundle } from './build.mjs'` then
 * `await buildPrebidBundle({ minify?: boolean })` → `{ outfile, bytes }` (outfile absolute,
 * bytes = its size). Throws esbuild's error when the bundle cannot be built (e.g. prebid.js
 * or esbuild not installed: `npm install`).
 * As a command: `node examples/prebid/build.mjs` builds (minified) and prints the path and size.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Absolute path of the bundle the page loads. */
export const bundlePath = join(here, 'dist', 'prebid-bundle.js');

/**
 * Builds the bundle. `minify` defaults to true (what a publisher ships); tests may skip it to
 * save time. Resolves to the absolute output path and its size in bytes.
 */
export async function buildPrebidBundle({ minify = true } = {}) {
  // Imported here so importing this file (e.g. from serve.mjs) costs nothing until a build runs.
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(here, 'src', 'main.js')],
    outfile: bundlePath,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify,
    sourcemap: minify ? false : 'inline',
    legalComments: 'none',
    logLevel: 'warning',
  });
  const { size } = await stat(bundlePath);
  return { outfile: bundlePath, bytes: size };
}

/** Absolute path of the video and native page's bundle (Prebid.js + the VAST client). */
export const videoNativeBundlePath = join(here, 'dist', 'prebid-video-native-bundle.js');

/**
 * Builds the video and native page's bundle (src/video-native.js) like `buildPrebidBundle`.
 * Resolves to the absolute output path and its size in bytes.
 */
export async function buildVideoNativeBundle({ minify = true } = {}) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(here, 'src', 'video-native.js')],
    outfile: videoNativeBundlePath,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify,
    sourcemap: minify ? false : 'inline',
    legalComments: 'none',
    logLevel: 'warning',
  });
  const { size } = await stat(videoNativeBundlePath);
  return { outfile: videoNativeBundlePath, bytes: size };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const { outfile, bytes } = await buildPrebidBundle();
  await buildVideoNativeBundle();
  const ms = Math.round(performance.now() - started);
  console.log(`built ${relative(process.cwd(), outfile)} (${(bytes / 1024).toFixed(1)} KiB) in ${ms} ms`);
}
