// Builds dist/ when it is missing or older than its sources: tsc when any file under src/ is newer
// than dist/cli/index.js, the console bundle when any file under console/ is newer than
// dist/console/console.js.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

const stale = (marker, sources) => !existsSync(marker) || statSync(marker).mtimeMs < newestMtime(sources);

if (stale('dist/cli/index.js', 'src')) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
if (stale('dist/console/console.js', 'console')) {
  execFileSync(process.execPath, ['scripts/build-console.mjs'], { stdio: 'inherit' });
}
