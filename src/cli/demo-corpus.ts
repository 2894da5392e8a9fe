/**
 * The conformance corpus for the demo (DESIGN section 10): every request in
 * `<conformance>/openrtb25/valid/`, read in place when the folder exists (`ADX_CONFORMANCE_DIR`,
 * else `../shared/conformance` from the working directory); none when it does not.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Bodies of the valid corpus requests, or [] when the corpus is absent. */
export async function readCorpus(dir = process.env.ADX_CONFORMANCE_DIR ?? resolve('..', 'shared', 'conformance')): Promise<string[]> {
  const valid = join(dir, 'openrtb25', 'valid');
  let names: string[];
  try {
    names = (await readdir(valid)).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return Promise.all(names.map((n) => readFile(join(valid, n), 'utf8')));
}
