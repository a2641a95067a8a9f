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
import type { SourceRecord, Store } from '../storage/store.js';
import { createPool, type EnginePool } from '../engine/pool/pool.js';
import { ingestStoredSource } from '../engine/service/ingest-source.js';
import { acceptSource } from '../gateway/services/sources.js';
import { createUser } from '../gateway/services/accounts.js';
import { fitCorpusKeys, fitCorpusPath, tempDir } from './support.js';

export const question = 'Ingest throughput: hours of activity decoded and stored per minute (corpus; 6-hour ride)';

function corpusFiles(): string[] {
  return fitCorpusKeys().filter((key) => key.toLowerCase().endsWith('.fit')).map(fitCorpusPath);
}

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

/** Ingests every file concurrently (one in flight per pool thread); returns activity hours and elapsed ms. */
async function ingestAll(store: Store, pool: EnginePool, threads: number, files: { filename: string; bytes: Uint8Array }[]): Promise<{ hours: number; ms: number; failed: number }> {
  const user = await createUser(store, { email: `bench-${Math.random().toString(36).slice(2)}@example.com` });
  const sources: SourceRecord[] = [];
  for (const file of files) sources.push(await acceptSource(store, user.id, file));
  const started = performance.now();
  let next = 0;
  let hours = 0;
  let failed = 0;
  await Promise.all(Array.from({ length: threads }, async () => {
    while (next < sources.length) {
      const source = sources[next++]!;
      const result = await ingestStoredSource({ store, pool }, user.id, source.id, new AbortController().signal);
      if (result.status === 'failed') failed++;
      for (const id of result.activity_ids) {
        const activity = (await store.activities.get(id))!;
        hours += (activity.end - activity.start) / 3_600_000;
      }
    }
  }));
  return { hours, ms: performance.now() - started, failed };
}

export async function run(): Promise<string> {
  const dir = tempDir();
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dir, 'bench.sqlite') });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  try {
    const corpus = corpusFiles().map((file) => ({ filename: path.basename(file), bytes: readFileSync(file) }));
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
