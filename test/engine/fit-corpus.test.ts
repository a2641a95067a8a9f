/**
 * Every file of the FIT corpus (../shared/data/fit/, MANIFEST.md) decodes to the outcome pinned in
 * test/fixtures/fit-corpus.expected.json: processed (activities with sport, samples, start, end, offset,
 * per-metric sample counts, laps, devices; the warnings) or failed with a specific code. Never a crash
 * or a hang: each decode runs in a worker thread with a time limit, and a decode over the limit ends the
 * worker and fails that file's test instead of blocking CI.
 *
 * The GPL files are read from the shared folder, never copied. `UPDATE_GOLDEN=1` rewrites the golden
 * from the current decoder; review the diff against MANIFEST.md before committing it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { DecodedFile } from '../../engine/ingest/decoded.js';
import { DecodeError } from '../../engine/ingest/decode-error.js';
import { decodeFit } from '../../engine/ingest/fit.js';
import { FIXTURES, SHARED } from '../support/paths.js';

const CORPUS = path.join(SHARED, 'data', 'fit');
const GOLDEN = path.join(FIXTURES, 'fit-corpus.expected.json');
/** Per-file decode limit: the slowest file takes well under a second. */
const DECODE_LIMIT_MS = 20_000;
/** "must decode in well under a few seconds" (big_activity.fit, rides-MultiSport-2019-11-24.fit). */
const LARGE_FILE_LIMIT_MS = 3_000;
const NOT_DATA = new Set(['MANIFEST.md', 'SHA256SUMS', 'LICENSE', 'COPYING']);

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
  for (const bytes of mutations(new Uint8Array(readFileSync(path.join(CORPUS, file))), seed, count)) {
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
    const outcome = await outcomeOf(new Uint8Array(readFileSync(path.join(CORPUS, file))));
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

/** Data files under the corpus folder, as posix paths relative to it, sorted. */
function corpusFiles(dir = CORPUS, prefix = ''): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files.push(...corpusFiles(full, `${prefix}${name}/`));
    else if (!NOT_DATA.has(name)) files.push(`${prefix}${name}`);
  }
  return files;
}

function registerTests(): void {
  const updating = process.env.UPDATE_GOLDEN === '1';
  const files = corpusFiles();
  const golden = updating ? {} : (JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, Outcome>);
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

  test('pins every data file of the corpus, and nothing else', () => {
    assert.ok(files.length >= 81, `the corpus holds its 81 data files (found ${files.length})`);
    if (!updating) assert.equal(Object.keys(golden).sort(), files);
  });

  for (const file of files) {
    test(`decodes ${file} to its pinned outcome`, async () => {
      const { outcome } = await answerFor(file);
      assert.not.equal(outcome.status, 'crashed', `${file} must not crash: ${'message' in outcome ? outcome.message : ''}`);
      if (!updating) assert.equal(outcome, golden[file]);
    });
  }

  test('decodes big_activity.fit (100k records) and the 3 MB multisport file in well under a few seconds', async () => {
    for (const file of ['muktihari-fit/big_activity.fit', 'goldencheetah-gpl-2.0/rides-MultiSport-2019-11-24.fit']) {
      const { ms } = await answerFor(file);
      assert.ok(ms < LARGE_FILE_LIMIT_MS, `${file} took ${ms.toFixed(0)} ms`);
    }
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
    // MANIFEST: records with heart rate after the SDK's merge: 7,483 of 7,515 (fr935), 2,630 of 2,630 (HRM-Swim).
    const fr935 = await processed('fitdecode/garmin-fr935-cr.fit');
    assert.is(fr935.activities[0]!.metrics.heart_rate, 7483);
    const hrmSwim = await processed('goldencheetah-gpl-2.0/swims-GarminHRMswim.FIT');
    assert.is(hrmSwim.activities[0]!.metrics.heart_rate, 2630);
  });

  test('salvages an unfinished file (bad CRC, no session) and says so', async () => {
    const outcome = await processed('python-fitparse/nick.fit');
    assert.is(outcome.activities.length, 1);
    assert.ok(outcome.warnings.some((warning) => warning.includes('file CRC mismatch')));
    assert.ok(outcome.warnings.some((warning) => warning.includes('no session message')));
  });

  test('drops the records behind the 2-year jump at the end of a ride', async () => {
    const outcome = await processed('goldencheetah-gpl-2.0/rides-2013-04-11-17-32-50.fit');
    assert.is(outcome.activities[0]!.end, '2013-04-11T23:30:27.000Z');
    assert.ok(outcome.warnings.some((warning) => warning.includes('jump more than 24 h away')));
  });

  test('maps developer fields to power, smo2 and core_temperature', async () => {
    assert.ok((await processed('fit-file-parser/running-with-developer-data.fit')).activities[0]!.metrics.power! > 0);
    assert.ok((await processed('goldencheetah-gpl-2.0/rides-Indoor_Cycling2smO2sensors.fit')).activities[0]!.metrics.smo2! > 0);
    assert.ok((await processed('goldencheetah-gpl-2.0/coretemp-FR55-CoreTemp-Walk.fit')).activities[0]!.metrics.core_temperature! > 0);
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
    const gpl = new Set(readdirSync(path.join(CORPUS, 'goldencheetah-gpl-2.0')).filter((name) => name !== 'COPYING'));
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [name];
    });
    const copied = walk(FIXTURES).filter((name) => gpl.has(name) || name === 'COPYING');
    assert.equal(copied, []);
  });

  test('keeps each FIT fixture in the repository byte-identical to its corpus file, beside LICENSE and SOURCE.md', () => {
    const sums = new Map(readFileSync(path.join(CORPUS, 'SHA256SUMS'), 'utf8').trim().split('\n').map((line) => {
      const [sum, name] = line.split(/\s+/);
      return [name!.replace(/^\.\//, ''), sum!];
    }));
    const root = path.join(FIXTURES, 'fit');
    const folders = readdirSync(root);
    assert.ok(folders.includes('sweatpy'), 'sweatpy/4078723797.fit is in the repository for the API tests');
    for (const folder of folders) {
      assert.ok(existsSync(path.join(root, folder, 'LICENSE')), `${folder}/LICENSE`);
      assert.ok(existsSync(path.join(root, folder, 'SOURCE.md')), `${folder}/SOURCE.md`);
      for (const name of readdirSync(path.join(root, folder)).filter((file) => /\.fit$/i.test(file))) {
        const sum = createHash('sha256').update(readFileSync(path.join(root, folder, name))).digest('hex');
        assert.is(sum, sums.get(`${folder}/${name}`), `${folder}/${name} matches the corpus`);
      }
    }
  });

  test.after(async () => {
    if (updating) {
      const outcomes: Record<string, Outcome> = {};
      for (const file of files) outcomes[file] = (await answerFor(file)).outcome;
      writeFileSync(GOLDEN, `${JSON.stringify(outcomes, null, 2)}\n`);
    }
    await decoder.close();
  });

  test.run();
}

if (isMainThread) registerTests();
else serveDecodes();
