/**
 * Question: how many hours of activity does ingest (decode in the worker pool + summaries + storing
 * the record and its series in SQLite) handle per minute on this machine? Measured on the FIT corpus
 * (every file that decodes: the copies in test/fixtures/fit, plus the GPL folder from ../shared/data/fit
 * when present; the result line says how many files) and on one long synthetic ride (a 6-hour 1 Hz CSV
 * with power, heart rate, cadence, speed, distance and altitude), with every source processed in
 * parallel across the pool's threads. The public reference service states 50–100 hours per minute.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../storage/open-store.js';
import { createPool } from '../engine/pool/pool.js';
import { corpusFitFiles, ingestAll, tempDir } from './support.js';

export const question = 'Ingest throughput: hours of activity decoded and stored per minute (corpus; 6-hour ride)';

function longRideCsv(hours: number): string {
  const lines = ['timestamp,sport,power,heart_rate,cadence,speed,distance,altitude'];
  const start = Date.UTC(2024, 5, 1, 6);
  let distance = 0;
  for (let i = 0; i < hours * 3600; i++) {
    const speed = 8 + 2 * Math.sin(i / 300);
    distance += speed;
    lines.push(`${new Date(start + i * 1000).toISOString()},cycling.road,${Math.round(200 + 80 * Math.sin(i / 60))},${140 + (i % 20)},${85 + (i % 7)},${speed.toFixed(3)},${distance.toFixed(1)},${(100 + 50 * Math.sin(i / 900)).toFixed(1)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function run(): Promise<string> {
  const dir = tempDir();
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dir, 'bench.sqlite') });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  try {
    const corpus = corpusFitFiles().map((file) => ({ filename: path.basename(file), bytes: readFileSync(file) }));
    const ride = [{ filename: 'six-hours.csv', bytes: Buffer.from(longRideCsv(6)) }];
    await ingestAll(store, pool, threads, ride); // warm-up: worker start, JIT
    const c = await ingestAll(store, pool, threads, corpus);
    const r = await ingestAll(store, pool, threads, [{ filename: 'six-hours-2.csv', bytes: Buffer.from(longRideCsv(6).replace(/2024-06-01/g, '2024-06-02')) }]);
    const perMinute = (result: { hours: number; ms: number }) => (result.hours / (result.ms / 60_000)).toFixed(0);
    return `corpus: ${corpus.length} files (${c.failed} failed as pinned), ${c.hours.toFixed(1)} h in ${(c.ms / 1000).toFixed(2)} s = ${perMinute(c)} h/min; ` +
      `6-hour ride: ${(r.ms / 1000).toFixed(2)} s = ${perMinute(r)} h/min (${threads} threads)`;
  } finally {
    await pool.destroy();
    await store.close();
  }
}
