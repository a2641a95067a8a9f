/**
 * Every file of the FIT corpus (test/fixtures/fit/MANIFEST.md) decodes to the outcome pinned in
 * test/fixtures/fit-corpus.expected.json: processed (activities with sport, samples, start, end, offset,
 * per-metric sample counts, laps, devices; the warnings) or failed with a specific code. Never a crash
 * or a hang: each decode runs in a worker thread with a time limit, and a decode over the limit ends the
 * worker and fails that file's test instead of blocking CI.
 *
 * The MIT/BSD files are copies in test/fixtures/fit/. The GPL files are never copied: suite "GPL FIT
 * corpus" reads them from ../shared/data/fit/goldencheetah-gpl-2.0/ and is skipped, each test counted,
 * when that folder is absent; suite "FIT fixtures and the shared corpus" compares the copies with the
 * shared corpus when it is present. `UPDATE_GOLDEN=1` rewrites the golden from the current decoder
 * (keeping the GPL entries when the GPL folder is absent); review the diff against MANIFEST.md before
 * committing it.
 */
// test-runner: alone (decode times are held to limits: a large file under 3 s, the slowest corpus file under 1 s)
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { missingPath, skipUnless, suite, test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { DecodedFile } from '../../engine/ingest/decoded.js';
import { DecodeError } from '../../engine/ingest/decode-error.js';
import { decodeFit } from '../../engine/ingest/fit.js';
import { FIXTURES } from '../support/paths.js';
import { FIT_FIXTURES, GPL_FIT, GPL_FOLDER, SHARED_FIT, fitCorpusPath, fixtureKeys, gplKeys } from '../support/fit-corpus.js';

const GOLDEN = path.join(FIXTURES, 'fit-corpus.expected.json');
/** Per-file decode limit: the slowest file takes well under a second. */
const DECODE_LIMIT_MS = 20_000;
/** "must decode in well under a few seconds" (big_activity.fit, rides-MultiSport-2019-11-24.fit). */
const LARGE_FILE_LIMIT_MS = 3_000;
const isGpl = (file: string) => file.startsWith(`${GPL_FOLDER}/`);

interface ActivitySummary {
  sport: string;
  samples: number;
  start: string;
  end: string;
  offset: number;
  /** Samples with a value, per metric present. */
  metrics: Record<string, number>;
  laps: number;
  devices: string[];
}

type Outcome =
  | { status: 'processed'; activities: ActivitySummary[]; warnings: string[] }
  | { status: 'failed'; code: string; message: string }
  | { status: 'crashed'; message: string };

interface Answer {
  outcome: Outcome;
  ms: number;
}

type Request = { id: number; file: string; mutations?: { seed: number; count: number } };

/** What decoding many damaged copies of one file gave: outcome counts, crashes, the slowest decode. */
interface MutationReport {
  outcomes: Record<string, number>;
  crashes: string[];
  slowestMs: number;
}

function summarise(decoded: DecodedFile): Outcome {
  return {
    status: 'processed',
    activities: decoded.activities.map((activity) => ({
      sport: activity.sport,
      samples: activity.series.timestamps.length,
      start: new Date(activity.start).toISOString(),
      end: new Date(activity.end).toISOString(),
      offset: activity.offset,
      metrics: Object.fromEntries(activity.series.metrics.map(({ name, values }) => [name, values.filter((v) => !Number.isNaN(v)).length])),
      laps: activity.laps.length,
      devices: activity.devices,
    })),
    warnings: decoded.warnings,
  };
}

async function outcomeOf(bytes: Uint8Array): Promise<Outcome> {
  try {
    return summarise(await decodeFit(bytes));
  } catch (error) {
    return error instanceof DecodeError
      ? { status: 'failed', code: error.code, message: error.message }
      : { status: 'crashed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

/**
 * Damaged copies of `bytes`, reproducible from `seed` (a linear congruential generator): cut at a
 * random length, random bytes overwritten, a random 64-byte run scrambled, single bits flipped.
 */
function* mutations(bytes: Uint8Array, seed: number, count: number): Generator<Uint8Array> {
  let state = seed;
  const random = (below: number) => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return Math.floor((state / 0x80000000) * below);
  };
  const body = () => 14 + random(bytes.length - 14);
  for (let k = 0; k < count; k++) {
    const copy = bytes.slice();
    switch (k % 4) {
      case 0:
        yield copy.subarray(0, random(copy.length));
        continue;
      case 1:
        for (let n = 1 + random(8); n > 0; n--) copy[random(copy.length)] = random(256);
        break;
      case 2:
        for (let at = body(), end = Math.min(copy.length, at + 64); at < end; at++) copy[at] = random(256);
        break;
      default:
        for (let n = 1 + random(3); n > 0; n--) copy[body()]! ^= 1 << random(8);
    }
    yield copy;
  }
}

/** The decoder's output contract on a processed outcome's raw activities. */
function contractBroken(decoded: DecodedFile): string | null {
  for (const activity of decoded.activities) {
    const { timestamps, metrics } = activity.series;
    for (let i = 1; i < timestamps.length; i++) if (!(timestamps[i]! > timestamps[i - 1]!)) return `timestamps not increasing at ${i}`;
    if (metrics.some(({ values }) => values.length !== timestamps.length)) return 'a column length differs from the timestamps';
    if (activity.start !== timestamps[0] || activity.end !== timestamps[timestamps.length - 1]) return 'start/end are not the first/last sample';
  }
  return null;
}

async function mutate(file: string, seed: number, count: number): Promise<MutationReport> {
  const report: MutationReport = { outcomes: {}, crashes: [], slowestMs: 0 };
  let k = 0;
  for (const bytes of mutations(new Uint8Array(readFileSync(fitCorpusPath(file))), seed, count)) {
    const started = performance.now();
    let key: string;
    try {
      const decoded = await decodeFit(bytes);
      const broken = contractBroken(decoded);
      if (broken !== null) report.crashes.push(`mutation ${k}: ${broken}`);
      key = 'processed';
    } catch (error) {
      if (!(error instanceof DecodeError)) report.crashes.push(`mutation ${k}: ${error instanceof Error ? error.stack : String(error)}`);
      key = error instanceof DecodeError ? error.code : 'crashed';
    }
    report.slowestMs = Math.max(report.slowestMs, performance.now() - started);
    report.outcomes[key] = (report.outcomes[key] ?? 0) + 1;
    k++;
  }
  return report;
}

/** Worker side: decode the files (or damaged copies of them) the main thread asks for, one at a time. */
function serveDecodes(): void {
  parentPort!.on('message', async ({ id, file, mutations: damage }: Request) => {
    if (damage !== undefined) {
      parentPort!.postMessage({ id, answer: await mutate(file, damage.seed, damage.count) });
      return;
    }
    const started = performance.now();
    const outcome = await outcomeOf(new Uint8Array(readFileSync(fitCorpusPath(file))));
    parentPort!.postMessage({ id, answer: { outcome, ms: performance.now() - started } });
  });
}

/** Main side: one worker, requests in sequence, each with its own time limit. */
class Decoder {
  private worker: Worker | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private next = 0;

  decode(file: string): Promise<Answer> {
    return this.enqueue<Answer>({ file });
  }

  mutate(file: string, seed: number, count: number): Promise<MutationReport> {
    return this.enqueue<MutationReport>({ file, mutations: { seed, count } });
  }

  private enqueue<T>(request: Omit<Request, 'id'>): Promise<T> {
    const run = this.queue.then(() => this.ask<T>(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  close(): Promise<number> | undefined {
    return this.worker?.terminate();
  }

  private ask<T>(request: Omit<Request, 'id'>): Promise<T> {
    const worker = (this.worker ??= new Worker(new URL(import.meta.url)));
    worker.unref();
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (message: { id: number; answer: T }) => {
        if (message.id !== id) return;
        settle();
        resolve(message.answer);
      };
      const onError = (error: Error) => {
        settle();
        this.worker = null;
        reject(error);
      };
      const timer = setTimeout(() => {
        settle();
        this.worker = null;
        void worker.terminate();
        reject(new Error(`decoding ${request.file} took longer than ${DECODE_LIMIT_MS} ms`));
      }, DECODE_LIMIT_MS);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ ...request, id });
    });
  }
}

/** `<sum>  ./<folder>/<name>` lines of a SHA256SUMS file, by corpus key. */
function readSums(file: string): Map<string, string> {
  return new Map(readFileSync(file, 'utf8').trim().split('\n').map((line) => {
    const [sum, name] = line.split(/\s+/);
    return [name!.replace(/^\.\//, ''), sum!];
  }));
}

function registerTests(): void {
  const updating = process.env.UPDATE_GOLDEN === '1';
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, Outcome>;
  const copies = fixtureKeys();
  const gplMissing = missingPath('the GPL part of the FIT corpus, kept out of the tree', GPL_FIT);
  // Without the folder its files are named from the golden, so each of their tests is counted as skipped.
  const gpl = gplMissing === null ? gplKeys() : Object.keys(golden).filter(isGpl).sort();
  const decoder = new Decoder();
  const answers = new Map<string, Promise<Answer>>();
  const answerFor = (file: string) => {
    let answer = answers.get(file);
    if (answer === undefined) {
      answer = decoder.decode(file);
      answers.set(file, answer);
    }
    return answer;
  };
  const processed = async (file: string) => {
    const { outcome } = await answerFor(file);
    assert.is(outcome.status, 'processed', `${file} is processed`);
    return outcome as Extract<Outcome, { status: 'processed' }>;
  };
  const pinned = (on: typeof test, file: string) => {
    on(`decodes ${file} to its pinned outcome`, async () => {
      const { outcome } = await answerFor(file);
      assert.not.equal(outcome.status, 'crashed', `${file} must not crash: ${'message' in outcome ? outcome.message : ''}`);
      if (!updating) assert.equal(outcome, golden[file]);
    });
  };

  const gplCorpus = suite('GPL FIT corpus');
  skipUnless(gplMissing, gplCorpus);

  gplCorpus('pins every data file of the GPL folder, and nothing else', () => {
    assert.is(gpl.length, 15, `the GPL folder holds its 15 data files (found ${gpl.length})`);
    if (!updating) assert.equal(Object.keys(golden).filter(isGpl).sort(), gpl);
  });

  for (const file of gpl) pinned(gplCorpus, file);

  gplCorpus('decodes the 3 MB multisport file in well under a few seconds', async () => {
    const file = `${GPL_FOLDER}/rides-MultiSport-2019-11-24.fit`;
    const { ms } = await answerFor(file);
    assert.ok(ms < LARGE_FILE_LIMIT_MS, `${file} took ${ms.toFixed(0)} ms`);
  });

  gplCorpus('merges heart rate stored only in hr messages (HRM-Swim) onto the records, as the FIT SDK does', async () => {
    // MANIFEST: records with heart rate after the SDK's merge: 2,630 of 2,630 (HRM-Swim).
    const hrmSwim = await processed(`${GPL_FOLDER}/swims-GarminHRMswim.FIT`);
    assert.is(hrmSwim.activities[0]!.metrics.heart_rate, 2630);
  });

  gplCorpus('drops the records behind the 2-year jump at the end of a ride', async () => {
    const outcome = await processed(`${GPL_FOLDER}/rides-2013-04-11-17-32-50.fit`);
    assert.is(outcome.activities[0]!.end, '2013-04-11T23:30:27.000Z');
    assert.ok(outcome.warnings.some((warning) => warning.includes('jump more than 24 h away')));
  });

  gplCorpus('maps developer fields to smo2 and core_temperature', async () => {
    assert.ok((await processed(`${GPL_FOLDER}/rides-Indoor_Cycling2smO2sensors.fit`)).activities[0]!.metrics.smo2! > 0);
    assert.ok((await processed(`${GPL_FOLDER}/coretemp-FR55-CoreTemp-Walk.fit`)).activities[0]!.metrics.core_temperature! > 0);
  });

  gplCorpus.run();

  const sharedCorpus = suite('FIT fixtures and the shared corpus');
  skipUnless(missingPath('the shared FIT corpus to compare the copies with', SHARED_FIT), sharedCorpus);

  sharedCorpus('copies every file outside the GPL folder, byte-identical to the shared corpus', () => {
    const shared = [...readSums(path.join(SHARED_FIT, 'SHA256SUMS'))].filter(([file]) => !isGpl(file)).sort();
    assert.equal([...readSums(path.join(FIT_FIXTURES, 'SHA256SUMS'))].sort(), shared);
  });

  sharedCorpus.run();

  test('pins every copied data file of the corpus, and nothing else', () => {
    assert.ok(copies.length >= 66, `test/fixtures/fit holds the corpus's 66 MIT/BSD data files (found ${copies.length})`);
    if (!updating) assert.equal(Object.keys(golden).filter((file) => !isGpl(file)).sort(), copies);
  });

  for (const file of copies) pinned(test, file);

  test('decodes big_activity.fit (100k records) in well under a few seconds', async () => {
    const file = 'muktihari-fit/big_activity.fit';
    const { ms } = await answerFor(file);
    assert.ok(ms < LARGE_FILE_LIMIT_MS, `${file} took ${ms.toFixed(0)} ms`);
  });

  test('splits a triathlon into swim, bike and run, skipping the two transitions', async () => {
    const outcome = await processed('muktihari-fit/triathlon_summary_last.fit');
    assert.equal(outcome.activities.map((activity) => activity.sport), ['swimming.open_water', 'cycling.road', 'running.road']);
    assert.ok(outcome.warnings.some((warning) => warning.includes('2 transition sessions')));
  });

  test('decodes both FIT files of a chained upload (run, then bike)', async () => {
    const outcome = await processed('derived/fenix5-run-then-bike-chained.fit');
    assert.equal(outcome.activities.map((activity) => [activity.sport, activity.samples]), [['running.road', 21], ['cycling.road', 19]]);
  });

  test('merges heart rate stored in hr messages onto the records, as the FIT SDK does', async () => {
    // MANIFEST: records with heart rate after the SDK's merge: 7,483 of 7,515 (fr935).
    const fr935 = await processed('fitdecode/garmin-fr935-cr.fit');
    assert.is(fr935.activities[0]!.metrics.heart_rate, 7483);
  });

  test('salvages an unfinished file (bad CRC, no session) and says so', async () => {
    const outcome = await processed('python-fitparse/nick.fit');
    assert.is(outcome.activities.length, 1);
    assert.ok(outcome.warnings.some((warning) => warning.includes('file CRC mismatch')));
    assert.ok(outcome.warnings.some((warning) => warning.includes('no session message')));
  });

  test('maps developer fields to power', async () => {
    assert.ok((await processed('fit-file-parser/running-with-developer-data.fit')).activities[0]!.metrics.power! > 0);
  });

  // Small files with compressed timestamps, developer fields and unterminated strings: cheap to damage often.
  const damaged = [
    'python-fitparse/garmin-fenix-5-run.fit',
    'python-fitparse/compressed-speed-distance.fit',
    'python-fitparse/elemnt-bolt-no-application-id-inside-developer-data-id.fit',
    'tormoder-fit/misc-unterminated-strings.fit',
  ];
  damaged.forEach((file, seed) => {
    test(`ends every damaged copy of ${file} processed or failed with a code, quickly`, async () => {
      const report = await decoder.mutate(file, seed + 1, 300);
      assert.equal(report.crashes, []);
      assert.is(Object.values(report.outcomes).reduce((sum, n) => sum + n, 0), 300);
      assert.ok(report.slowestMs < 1000, `slowest decode ${report.slowestMs.toFixed(0)} ms`);
    });
  });

  test('keeps GPL corpus files out of the repository fixtures', () => {
    // Named from the golden, so this holds without the GPL folder; the GPL suite pins the golden to it.
    const names = new Set(Object.keys(golden).filter(isGpl).map((file) => file.slice(GPL_FOLDER.length + 1)));
    assert.is(names.size, 15);
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? [name, ...walk(full)] : [name];
    });
    const copied = walk(FIXTURES).filter((name) => names.has(name) || name === 'COPYING' || name === GPL_FOLDER);
    assert.equal(copied, []);
  });

  test('keeps each copied file in SHA256SUMS with its checksum, in a folder with LICENSE and SOURCE.md', () => {
    const sums = readSums(path.join(FIT_FIXTURES, 'SHA256SUMS'));
    assert.equal([...sums.keys()].sort(), copies);
    assert.ok(copies.includes('sweatpy/4078723797.fit'), 'sweatpy/4078723797.fit is in the repository for the API tests');
    for (const folder of new Set(copies.map((file) => file.split('/')[0]!))) {
      assert.ok(existsSync(path.join(FIT_FIXTURES, folder, 'LICENSE')), `${folder}/LICENSE`);
      assert.ok(existsSync(path.join(FIT_FIXTURES, folder, 'SOURCE.md')), `${folder}/SOURCE.md`);
    }
    for (const file of copies) {
      const sum = createHash('sha256').update(readFileSync(fitCorpusPath(file))).digest('hex');
      assert.is(sum, sums.get(file), `${file} matches SHA256SUMS`);
    }
  });

  test.after(async () => {
    if (updating) {
      // Entries of files not readable here (the GPL folder when absent) are kept as they are.
      const outcomes: Record<string, Outcome> = Object.fromEntries(Object.entries(golden).filter(([file]) => isGpl(file) && gplMissing !== null));
      for (const file of [...copies, ...(gplMissing === null ? gpl : [])]) outcomes[file] = (await answerFor(file)).outcome;
      const sorted = Object.fromEntries(Object.entries(outcomes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      writeFileSync(GOLDEN, `${JSON.stringify(sorted, null, 2)}\n`);
    }
    await decoder.close();
  });

  test.run();
}

if (isMainThread) registerTests();
else serveDecodes();
