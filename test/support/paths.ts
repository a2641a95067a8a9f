/** Paths tests need, independent of whether they run from the source tree or from dist/. */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root (tests are compiled to dist/test/…, three levels below it). */
export const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
export const SHARED = path.resolve(REPO_ROOT, '..', 'shared');
