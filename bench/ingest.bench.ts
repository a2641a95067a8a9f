/**
 * Question: how many hours of activity does ingest (decode in the worker pool + summaries + storing
 * the record and its series in SQLite) handle per minute on this machine, against its ceiling: the FIT
 * and CSV decoder alone (the same files decoded in the same pool, nothing stored), measured in the same
 * run? On the FIT corpus (every file that decodes: the copies in test/fixtures/fit, plus the GPL folder
 * from ../shared/data/fit when present; the result line says how many files), on synthetic rides (1 Hz
 * CSVs with power, heart rate, cadence, speed, distance and altitude), and on one long synthetic ride
 * alone (6 hours: one file, one thread busy), with every source processed in parallel across the pool's
 * threads. Each figure is the fastest of three runs (the decoder and ingest in turn), after a warm-up that decodes and ingests every
 * file once (worker start, JIT of both decoders). The public reference service states 50–100 hours per minute.
 * Rows: each ingest figure (h/min) against the decoder alone on the same files in the same run.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../storage/open-store.js';
import { createPool } from '../engine/pool/pool.js';
import { corpusFitFiles, decodeAll, fastestOfEach, hoursPerMinute, ingestAll, quick, syntheticRideCsv, syntheticRides, tempDir } from './support.js';
import { share, type BenchResult, type BenchRow, type Dataset } from './results.js';

export const question = 'Ingest throughput: hours of activity decoded and stored per minute against the decoder alone (corpus; synthetic rides; one 6-hour ride)';

const SYNTHETIC_RIDES = quick(8, 2);
const SYNTHETIC_HOURS = quick(1.5, 0.1);
const LONG_RIDE_HOURS = quick(6, 0.2);
const RUNS = quick(3, 1);

type Measured = { hours: number; ms: number };

/** The row of one data set: ingest's hours per minute against the decoder's on the same files. */
function row(question: string, dataset: Dataset, ingest: Measured, decode: Measured): BenchRow {
  const [figure, anchor] = [hoursPerMinute(ingest), hoursPerMinute(decode)];
  return { question, dataset, figure, unit: 'h/min', anchor, anchorLabel: 'the decoder alone', ratio: share(figure, anchor, 'higher') };
}

export async function run(): Promise<BenchResult> {
  const dir = tempDir();
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dir, 'bench.sqlite') });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  try {
    const corpus = corpusFitFiles().map((file) => ({ filename: path.basename(file), bytes: readFileSync(file) }));
    const synthetic = syntheticRides(SYNTHETIC_RIDES, SYNTHETIC_HOURS);
    const ride = [{ filename: 'six-hours.csv', bytes: Buffer.from(syntheticRideCsv(LONG_RIDE_HOURS, Date.UTC(2024, 7, 1, 6))) }];
    for (const files of [corpus, synthetic]) { // worker start, JIT of both decoders and of the store's paths
      await decodeAll(pool, threads, files);
      await ingestAll(store, pool, threads, files);
    }
    const against = (ingest: Measured, decode: Measured) =>
      `ingest ${hoursPerMinute(ingest).toFixed(0)} h/min, decoder alone ${hoursPerMinute(decode).toFixed(0)} h/min, ratio ${(hoursPerMinute(ingest) / hoursPerMinute(decode)).toFixed(2)}`;
    type Files = { filename: string; bytes: Uint8Array }[];
    // The decoder and ingest in turn, the fastest of each: both meet the same moments of the machine.
    const measured = (files: Files) => fastestOfEach(RUNS, [() => decodeAll(pool, threads, files), () => ingestAll(store, pool, threads, files)] as const);
    const [cDecode, c] = await measured(corpus);
    const [sDecode, s] = await measured(synthetic);
    const [rDecode, r] = await measured(ride);
    const text = `corpus: ${corpus.length} files (${c.failed} failed as pinned), ${c.hours.toFixed(1)} h in ${(c.ms / 1000).toFixed(2)} s: ${against(c, cDecode)}; ` +
      `synthetic: ${SYNTHETIC_RIDES} rides of ${SYNTHETIC_HOURS} h in ${(s.ms / 1000).toFixed(2)} s: ${against(s, sDecode)}; ` +
      `${LONG_RIDE_HOURS}-hour ride: ${(r.ms / 1000).toFixed(2)} s: ${against(r, rDecode)} (${threads} threads)`;
    return {
      text,
      rows: [
        row('ingest of every corpus file, one per pool thread', 'corpus', c, cDecode),
        row('ingest of synthetic rides, one per pool thread', 'synthetic', s, sDecode),
        row('ingest of one long ride (one thread busy)', 'synthetic', r, rDecode),
      ],
    };
  } finally {
    await pool.destroy();
    await store.close();
  }
}
