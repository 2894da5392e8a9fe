/**
 * Debian's Chromium for the browser tests (`test/browser`), driven by playwright-core; Playwright's
 * own browser downloads are never used. The path is `/usr/bin/chromium` (`apt-get install -y
 * chromium`) unless ADX_CHROMIUM_PATH overrides it; a suite skips visibly when it is absent.
 * Launch flags: headless without a sandbox (CI runs as root), and no background networking,
 * component updates or sync, since this machine's closed network refuses those connections.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** The Chromium executable the browser tests use. */
export const chromiumPath = process.env.ADX_CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * True when Chromium is installed; when it is not, warns once for `suite` (shown in the test
 * output) so the skip is visible.
 */
export function chromiumFor(suite: string): boolean {
  const present = existsSync(chromiumPath);
  if (!present) console.warn(`[test/browser] skipping the ${suite}: no Chromium at ${chromiumPath} (apt-get install -y chromium)`);
  return present;
}

/** A launched browser context with its own profile folder; `close()` closes it and removes the folder. */
export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile. `options` are playwright's (viewport, downloads...). */
export async function launchChromium(options: { viewport?: { width: number; height: number }; acceptDownloads?: boolean } = {}): Promise<LaunchedChromium> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'adx-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
