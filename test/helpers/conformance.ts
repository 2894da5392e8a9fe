/**
 * Locating the third-party conformance corpus (DESIGN section 10). The corpus is read in place,
 * never copied into the repository; tests that use it skip, with a visible message, when it is
 * absent (e.g. a fresh clone).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

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

/**
 * Absolute path of `parts` (a file or folder, e.g. `['openrtb25', 'valid']`) inside the
 * conformance folder, or undefined when the folder or that entry does not exist (a fresh clone,
 * or `ADX_CONFORMANCE_DIR` pointing at an empty folder).
 */
export function corpusPath(...parts: string[]): string | undefined {
  const dir = conformanceDir();
  if (dir === undefined) return undefined;
  const path = join(dir, ...parts);
  return existsSync(path) ? path : undefined;
}

/**
 * Registers `define(path)` inside `describe(name)` when the corpus entry `parts` exists (see
 * {@link corpusPath}). Otherwise the body never runs: a skipped describe whose title says what is
 * missing shows in the report, and a warning names it (DESIGN section 10: skip visibly).
 */
export function describeCorpus(name: string, parts: readonly string[], define: (path: string) => void): void {
  const path = corpusPath(...parts);
  if (path === undefined) {
    const what = parts.join('/');
    console.warn(`[conformance] ${name}: skipped, no ${what} in the conformance corpus (set ADX_CONFORMANCE_DIR or provide ../shared/conformance)`);
    describe.skip(`${name} (skipped: no ${what} in the conformance corpus)`, () => {
      it('needs the conformance corpus', () => undefined);
    });
    return;
  }
  describe(name, () => define(path));
}
