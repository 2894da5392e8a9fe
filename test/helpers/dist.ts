/** The built CLI (`npm test` builds `dist/` first, in `pretest`), for tests that run real child processes. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** Absolute path of `dist/cli/index.js`. */
export const DIST_CLI = resolve(import.meta.dirname, '..', '..', 'dist', 'cli', 'index.js');

/** True when `dist/` has been built (tests that need child processes skip visibly otherwise). */
export function distBuilt(): boolean {
  const built = existsSync(DIST_CLI);
  if (!built) console.warn('dist/ is not built (run `npm run build`): skipping child-process tests');
  return built;
}
