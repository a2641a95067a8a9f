/**
 * Question: how many hours of activity does ingest (decode in the worker pool + summaries + storing
 * the record and its series in SQLite) handle per minute on this machine, against its ceiling: the FIT
 * and CSV decoder alone (the same files decoded in the same pool, nothing stored), measured in the same
 * run? On the FIT corpus (every file that decodes: the copies in test/fixtures/fit, plus the GPL folder
 * from ../shared/data/fit when present; the result line says how many files), on synthetic rides (1 Hz
 * CSVs with power, heart rate, cadence, speed, distance and altitude), and on one long synthetic ride
 * alone (6 hours: one file, one thread busy), with every source processed in parallel across the pool's
 * threads. The public reference service states 50–100 hours per minute.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../storage/open-store.js';
import { createPool } from '../engine/pool/pool.js';
import { corpusFitFiles, decodeAll, hoursPerMinute, ingestAll, syntheticRideCsv, syntheticRides, tempDir } from './support.js';

export const question = 'Ingest throughput: hours of activity decoded and stored per minute against the decoder alone (corpus; synthetic rides; one 6-hour ride)';

const SYNTHETIC_RIDES = 8;
const SYNTHETIC_HOURS = 1.5;

export async function run(): Promise<string> {
  const dir = tempDir();
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dir, 'bench.sqlite') });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  try {
    const corpus = corpusFitFiles().map((file) => ({ filename: path.basename(file), bytes: readFileSync(file) }));
    const synthetic = syntheticRides(SYNTHETIC_RIDES, SYNTHETIC_HOURS);
    await ingestAll(store, pool, threads, [{ filename: 'warm-up.csv', bytes: Buffer.from(syntheticRideCsv(1, Date.UTC(2023, 0, 1))) }]); // worker start, JIT
    const against = (ingest: { hours: number; ms: number }, decode: { hours: number; ms: number }) =>
      `ingest ${hoursPerMinute(ingest).toFixed(0)} h/min, decoder alone ${hoursPerMinute(decode).toFixed(0)} h/min, ratio ${(hoursPerMinute(ingest) / hoursPerMinute(decode)).toFixed(2)}`;
    const cDecode = await decodeAll(pool, threads, corpus);
    const c = await ingestAll(store, pool, threads, corpus);
    const sDecode = await decodeAll(pool, threads, synthetic);
    const s = await ingestAll(store, pool, threads, synthetic);
    const ride = [{ filename: 'six-hours.csv', bytes: Buffer.from(syntheticRideCsv(6, Date.UTC(2024, 7, 1, 6))) }];
    const rDecode = await decodeAll(pool, threads, ride);
    const r = await ingestAll(store, pool, threads, ride);
    return `corpus: ${corpus.length} files (${c.failed} failed as pinned), ${c.hours.toFixed(1)} h in ${(c.ms / 1000).toFixed(2)} s: ${against(c, cDecode)}; ` +
      `synthetic: ${SYNTHETIC_RIDES} rides of ${SYNTHETIC_HOURS} h in ${(s.ms / 1000).toFixed(2)} s: ${against(s, sDecode)}; ` +
      `6-hour ride: ${(r.ms / 1000).toFixed(2)} s: ${against(r, rDecode)} (${threads} threads)`;
  } finally {
    await pool.destroy();
    await store.close();
  }
}
