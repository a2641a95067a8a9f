/**
 * The child process of test/run.ts (one per test file, support/run-pool.ts): `node dist/test/support/run-files.js <dir> <pattern>` does what uvu's
 * own runner (uvu/run) does — load every matching file into uvu's queue, then run the queue — except that
 * a file which throws while loading (a missing file read at module level, a bad import) no longer ends
 * the whole run. Its error is printed under the file's name and counted in uvu's summary as one failed
 * test (`Total` + 1, `Passed` + 0); every other file still runs.
 *
 * It relies on uvu 0.5's queue (`UVU_DEFER`, `UVU_QUEUE`, `UVU_INDEX`) exactly as uvu/run does.
 * Kept honest by test/support/uvu.test.ts, which runs its small suites through this file.
 */
import { pathToFileURL } from 'node:url';
import { parse } from 'uvu/parse';

/** A queued suite run as uvu's runner returns it: errors (or true), passed, skipped, total. */
type SuiteRun = () => Promise<[string | true, number, number, number]>;

const uvuGlobals = globalThis as typeof globalThis & { UVU_DEFER?: number; UVU_INDEX?: number; UVU_QUEUE: [string, ...SuiteRun[]][] };

const [dir, pattern] = process.argv.slice(2);
uvuGlobals.UVU_DEFER = 1;
const { exec } = await import('uvu');
const { suites } = await parse(dir, pattern);

for (const [index, { name, file }] of suites.entries()) {
  uvuGlobals.UVU_INDEX = index;
  const group: [string, ...SuiteRun[]] = [name];
  uvuGlobals.UVU_QUEUE.push(group);
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    const cause = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const report = `  ✘ ${name} failed to load, so its tests did not run (counted as 1 failed):\n    ${cause.split('\n').join('\n    ')}`;
    group.push(async () => [report, 0, 0, 1]);
  }
}

await exec();
