#!/usr/bin/env node
/**
 * Serves the Prebid.js example page against a running exchange (docs/prebid.md).
 *
 *   node examples/prebid/serve.mjs [--adx <url>] [--account <pub_id>] [--admin-key <key>] [--port <n>] [--host <h>]
 *   (npm run example:prebid -- ...)
 *
 * Builds dist/prebid-bundle.js, serves `/` (index.html) and `/dist/prebid-bundle.js` on
 * 127.0.0.1 (nothing else: 404), and prints the page URL with `adx` and `account` filled in.
 * The account is `--account`, else looked up through the admin API (`GET /v1/publishers` with
 * `--admin-key` or `ADX_ADMIN_KEY`): the first publisher with `browser_access` whose `domains`
 * allow 127.0.0.1 or localhost, preferring "Demo Publisher" (the bundled demo seed's).
 *
 * As a module: `startExampleServer({ port?, host? })` → `{ url, close() }` and
 * `findBrowserPublisherId({ adxUrl, adminKey })` → the id or undefined.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildPrebidBundle, buildVideoNativeBundle, bundlePath, videoNativeBundlePath } from './build.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** The files served, by URL path; anything else is 404 (no directory walking, no traversal). */
const routes = {
  '/': { file: join(here, 'index.html'), type: 'text/html; charset=utf-8' },
  '/index.html': { file: join(here, 'index.html'), type: 'text/html; charset=utf-8' },
  '/dist/prebid-bundle.js': { file: bundlePath, type: 'text/javascript; charset=utf-8' },
  '/video-native.html': { file: join(here, 'video-native.html'), type: 'text/html; charset=utf-8' },
  '/dist/prebid-video-native-bundle.js': { file: videoNativeBundlePath, type: 'text/javascript; charset=utf-8' },
};

/**
 * Starts the static server on `host` (default 127.0.0.1) and `port` (default 0: any free port).
 * Files are read per request (no caching), so a rebuilt bundle is served at once.
 * Resolves to `{ url: 'http://<host>:<port>', close(): Promise<void> }`; rejects when the port is taken.
 */
export async function startExampleServer({ port = 0, host = '127.0.0.1' } = {}) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = routes[path];
    if (!route || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    readFile(route.file).then(
      (body) => {
        res.writeHead(200, { 'content-type': route.type, 'content-length': body.length, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not built: node examples/prebid/build.mjs'),
    );
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Finds a publisher the example page can bid as: `GET <adxUrl>/v1/publishers` with the admin
 * key; the first with `browser_access: true` and 127.0.0.1 or localhost in `domains`, "Demo
 * Publisher" first. Resolves to its id, or undefined when none fits; rejects on a network
 * error or a non-200 answer (e.g. 401 for a wrong admin key).
 */
export async function findBrowserPublisherId({ adxUrl, adminKey }) {
  const res = await fetch(`${adxUrl}/v1/publishers`, { headers: { authorization: `Bearer ${adminKey}` } });
  if (res.status !== 200) throw new Error(`GET /v1/publishers answered ${res.status}`);
  const { data } = await res.json();
  const usable = (data ?? []).filter(
    (p) => p.browser_access === true && (p.domains ?? []).some((d) => d === '127.0.0.1' || d === 'localhost'),
  );
  usable.sort((a, b) => Number(b.name === 'Demo Publisher') - Number(a.name === 'Demo Publisher'));
  return usable[0]?.id;
}

async function main() {
  const { values } = parseArgs({
    options: {
      adx: { type: 'string', default: process.env.ADX_URL ?? 'http://127.0.0.1:8080' },
      account: { type: 'string' },
      'admin-key': { type: 'string', default: process.env.ADX_ADMIN_KEY ?? '' },
      port: { type: 'string', default: '8081' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  const adxUrl = values.adx.replace(/\/+$/, '');
  let account = values.account;
  if (!account && values['admin-key']) {
    try {
      account = await findBrowserPublisherId({ adxUrl, adminKey: values['admin-key'] });
      if (!account) console.error('no publisher with browser_access and 127.0.0.1/localhost in its domains; pass --account');
    } catch (err) {
      console.error(`could not look up the publisher at ${adxUrl}: ${err instanceof Error ? err.message : err}`);
    }
  } else if (!account) {
    console.error('no --account and no ADX_ADMIN_KEY: the page needs your publisher id (pass --account pub_...)');
  }

  const { bytes } = await buildPrebidBundle();
  await buildVideoNativeBundle();
  const server = await startExampleServer({ port: Number(values.port), host: values.host });
  const query = new URLSearchParams({ adx: adxUrl, account: account ?? 'REPLACE_WITH_YOUR_PUBLISHER_ID' });
  console.log(`Prebid.js bundle: ${(bytes / 1024).toFixed(1)} KiB`);
  console.log(`example page:     ${server.url}/?${query}`);
  console.log(`  gzip variant:   ${server.url}/?${query}&gzip=1`);
  console.log(`  video + native: ${server.url}/video-native.html?${query}`);
  console.log('Ctrl-C to stop');
  const stop = () => server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
