/** Paths, temporary folders and shared measurements for benchmarks (the tests' helpers re-exported, so bench/ reads on its own). */
import type { EnginePool } from '../engine/pool/pool.js';
import { ingestStoredSource } from '../engine/service/ingest-source.js';
import { createUser } from '../gateway/services/accounts.js';
import { acceptSource } from '../storage/sources.js';
import type { SourceRecord, Store } from '../storage/store.js';
import { fitCorpusKeys, fitCorpusPath } from '../test/support/fit-corpus.js';

export { REPO_ROOT } from '../test/support/paths.js';
export { fitCorpusKeys, fitCorpusPath } from '../test/support/fit-corpus.js';
export { tempDir } from '../test/support/stack.js';
/** What a script's run() returns and the rows of the closing table (bench/results.ts), here too for scripts that read this file only. */
export { share, type BenchOutput, type BenchResult, type BenchRow } from './results.js';

/** The corpus's FIT files: the copies in test/fixtures/fit, plus the GPL folder from ../shared when present. */
export function corpusFitFiles(): string[] {
  return fitCorpusKeys().filter((key) => key.toLowerCase().endsWith('.fit')).map(fitCorpusPath);
}

/** Ingests every file concurrently (one in flight per pool thread); returns activity hours and elapsed ms. */
export async function ingestAll(store: Store, pool: EnginePool, threads: number, files: { filename: string; bytes: Uint8Array }[]): Promise<{ hours: number; ms: number; failed: number }> {
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
        const activity = (await store.activities.findOne({ id, user_id: user.id }))!;
        hours += (activity.end - activity.start) / 3_600_000;
      }
    }
  }));
  return { hours, ms: performance.now() - started, failed };
}
