/**
 * Where the FIT corpus is read from. Its MIT/BSD part is copied into the tree (test/fixtures/fit/,
 * MANIFEST.md there); its GPL folder is deliberately not, and is read from the shared corpus beside the
 * checkout (../shared/data/fit/goldencheetah-gpl-2.0/) only when that folder is present. A file is named
 * by its corpus key `<folder>/<name>`, the key of test/fixtures/fit-corpus.expected.json, wherever it lives.
 *
 * Deliberately no test framework here: the benches use it too. test/engine/fit-corpus.test.ts keeps the
 * listing honest (every key pinned, every copy in SHA256SUMS).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, SHARED } from './paths.js';

/** The copied MIT/BSD part of the corpus. */
export const FIT_FIXTURES = path.join(FIXTURES, 'fit');
/** The shared corpus, when it sits beside the checkout. */
export const SHARED_FIT = path.join(SHARED, 'data', 'fit');
/** The corpus's GPL folder name, and where it is read from. */
export const GPL_FOLDER = 'goldencheetah-gpl-2.0';
export const GPL_FIT = path.join(SHARED_FIT, GPL_FOLDER);

/** Files beside the data that are not corpus files: licences, manifests, sums, the analytics goldens. */
const NOT_DATA = new Set(['MANIFEST.md', 'SHA256SUMS', 'LICENSE', 'COPYING', 'SOURCE.md']);
const isData = (name: string) => !NOT_DATA.has(name) && !name.endsWith('.expected.json');

/** The path of a corpus file from its key. */
export function fitCorpusPath(key: string): string {
  return key.startsWith(`${GPL_FOLDER}/`) ? path.join(SHARED_FIT, key) : path.join(FIT_FIXTURES, key);
}

/** Keys of the copied data files under test/fixtures/fit, sorted. */
export function fixtureKeys(): string[] {
  return readdirSync(FIT_FIXTURES).sort()
    .filter((folder) => statSync(path.join(FIT_FIXTURES, folder)).isDirectory())
    .flatMap((folder) => dataFiles(path.join(FIT_FIXTURES, folder)).map((name) => `${folder}/${name}`));
}

/** Keys of the GPL data files, or none when the shared corpus is absent. */
export function gplKeys(): string[] {
  return existsSync(GPL_FIT) ? dataFiles(GPL_FIT).map((name) => `${GPL_FOLDER}/${name}`) : [];
}

/** Every corpus key that can be read here, sorted: the copies, plus the GPL folder when present. */
export function fitCorpusKeys(): string[] {
  return [...fixtureKeys(), ...gplKeys()].sort();
}

function dataFiles(dir: string): string[] {
  return readdirSync(dir).sort().filter((name) => isData(name) && statSync(path.join(dir, name)).isFile());
}
