// Builds the operator console (DESIGN section 12) into dist/console/: console/src/main.tsx and
// everything it imports (Preact, uPlot, the styles) bundled by esbuild into one console.js and one
// console.css, plus index.html. Nothing is loaded from elsewhere at run time.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles the console into `outDir` (default dist/console). */
export async function buildConsole({ outDir = join(root, 'dist', 'console'), minify = true } = {}) {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { console: join(root, 'console', 'src', 'main.tsx') },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  await copyFile(join(root, 'console', 'index.html'), join(outDir, 'index.html'));
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildConsole();
}
