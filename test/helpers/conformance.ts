/**
 * Locating the third-party conformance corpus (DESIGN section 10). The corpus is read in place,
 * never copied into the repository; tests that use it skip, with a visible message, when it is
 * absent (e.g. a fresh clone).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file lives in `<root>/test/helpers/`. */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The conformance folder: env `ADX_CONFORMANCE_DIR` when set (relative paths resolve against
 * the current directory), else `../shared/conformance` resolved from the repository root.
 * Returns undefined when that folder does not exist.
 */
export function conformanceDir(): string | undefined {
  const fromEnv = process.env.ADX_CONFORMANCE_DIR;
  const dir = fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : resolve(repoRoot, '..', 'shared', 'conformance');
  return existsSync(dir) && statSync(dir).isDirectory() ? dir : undefined;
}

/**
 * Absolute paths of the `*.json` files directly inside `dir`, sorted by name so test names are
 * stable; an empty list when `dir` does not exist.
 */
export function listJsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(dir, name));
}
