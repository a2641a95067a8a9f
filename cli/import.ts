/**
 * `threshold import --user USER_ID PATH…`: bulk import of FIT and CSV files (files or folders, walked
 * recursively) through the same ingest path as uploads: each file becomes a source with its ingest
 * job, and a job runner in this process (beside any running service: the queue is shared through the
 * store, jobs are leased) works the queue until every imported source is processed or failed.
 * A pipeline: files are read, hashed and accepted a few at a time, largest first, while the pool (started
 * first, warmed while the files are walked) decodes the ones accepted before, at most
 * ACCEPT_AHEAD_PER_THREAD files a thread ahead of those settled; the summary lists them in path order. The command's
 * store commits its writes in groups (IMPORT_GROUP_COMMIT), each write acknowledged only once committed.
 * Progress goes to stderr (a bar on a terminal, a line per 10 % otherwise); the summary is JSON.
 * test/gateway/processes.test.ts and test/cli/import.test.ts keep it honest.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../domain/logger.js';
import type { SourceRecord, Store } from '../storage/store.js';
import type { GroupCommit } from '../storage/sqlite/write-groups.js';
import { INGEST_JOB } from '../storage/jobs.js';
import { loadEngineConfig } from '../engine/config.js';
import { createPool, type EnginePool } from '../engine/pool/pool.js';
import { startJobRunner } from '../engine/jobs/runner.js';
import { ingestJobHandler } from '../engine/jobs/ingest-job.js';
import { acceptSource } from '../storage/sources.js';
import { cleanFilename } from '../gateway/multipart.js';

const EXTENSIONS = new Set(['.fit', '.csv']);
/** Fallback wait between progress reads, milliseconds (sources another process settles wake nothing here). */
const POLL_MS = 100;
/** Files read, hashed and accepted at the same time. */
const READERS = 4;
/** Accepted files not yet settled, at most (per pool thread): the pool always has work, the queue stays short. */
const ACCEPT_AHEAD_PER_THREAD = 8;
/**
 * Writes per transaction and the wait for a group to fill: one sync per group instead of one per write.
 * The wait is short on purpose: a commit blocks the event loop for its sync, and what arrives meanwhile
 * joins the next group, so a slow disk makes groups larger by itself.
 */
export const IMPORT_GROUP_COMMIT: GroupCommit = { maxWrites: 64, maxDelayMs: 2 };

export interface ImportSummary {
  files: number;
  processed: number;
  failed: number;
  activities: number;
  sources: { file: string; source_id: string; status: SourceRecord['status']; activity_ids: string[]; error: SourceRecord['error'] }[];
}

export async function importFiles(store: Store, env: Record<string, string | undefined>, userId: string, paths: string[], maxFileBytes: number): Promise<ImportSummary> {
  const engine = loadEngineConfig(env);
  const threads = engine.engineThreads;
  // First: a thread takes about as long to start (its modules loaded, the warm-up decoded) as the rest of
  // the command's start-up, so it starts while the user is checked and the files are walked and measured.
  const pool = createPool({ threads });
  const warming = warm(pool, threads);
  try {
    return await importWith(pool, threads, engine.jobLeaseMs, store, userId, paths, maxFileBytes);
  } finally {
    await warming;
    await pool.destroy();
  }
}

async function importWith(pool: EnginePool, threads: number, leaseMs: number, store: Store, userId: string, paths: string[], maxFileBytes: number): Promise<ImportSummary> {
  if (!(await store.users.get(userId))) throw new Error(`user ${userId} does not exist`);
  const files = (await Promise.all(paths.map((entry) => collect(path.resolve(entry))))).flat();
  // Every size before the first file is stored: a file too large stops the import with nothing imported.
  const sizes: number[] = [];
  for (const file of files) {
    const size = (await stat(file)).size;
    if (size > maxFileBytes) throw new Error(`${file} is larger than MAX_UPLOAD_BYTES (${maxFileBytes} bytes)`);
    sizes.push(size);
  }
  // The largest files first: the last ones decoded are small, so no thread finishes long after the others.
  const order = files.map((_, index) => index).sort((a, b) => sizes[b]! - sizes[a]! || a - b);

  const settledHere = new Wakeup();
  const ingest = ingestJobHandler({ store, pool });
  const runner = startJobRunner({
    store,
    logger: createLogger({ level: 'silent', name: 'import' }),
    handlers: {
      [INGEST_JOB]: {
        ...ingest,
        async run(job, signal) {
          await ingest.run(job, signal);
          settledHere.wake();
        },
      },
    },
    // Twice the threads: a job's decode waits in the pool while another's writes commit.
    concurrency: threads * 2,
    leaseMs,
    pollMs: POLL_MS,
  });
  const accepted: (SourceRecord | undefined)[] = new Array(files.length);
  /** The latest record of every source accepted; those still processing with their number of files (a file given twice is one source). */
  const status = new Map<string, SourceRecord>();
  const open = new Map<string, number>();
  const refreshed = new Wakeup();
  const progress = new Progress(files.length);
  let acceptedCount = 0;
  let settledFiles = 0;
  let failedFiles = 0;
  const failures: unknown[] = [];
  const settle = (source: SourceRecord, count: number) => {
    settledFiles += count;
    if (source.status === 'failed') failedFiles += count;
  };

  async function acceptAll(): Promise<void> {
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(READERS, files.length) }, async () => {
      for (;;) {
        while (open.size >= threads * ACCEPT_AHEAD_PER_THREAD && failures.length === 0) await refreshed.wait(POLL_MS);
        if (next >= files.length || failures.length > 0) return;
        const index = order[next++]!;
        const file = files[index]!;
        const source = await acceptSource(store, userId, { filename: cleanFilename(file), bytes: await readFile(file) });
        accepted[index] = source;
        status.set(source.id, source);
        if (source.status === 'processing') open.set(source.id, (open.get(source.id) ?? 0) + 1);
        else settle(source, 1);
        acceptedCount++;
        runner.wake();
      }
    }));
  }

  try {
    const accepting = acceptAll().catch((error: unknown) => {
      failures.push(error);
    });
    for (;;) {
      if (open.size > 0) {
        for (const source of await store.sources.find({ user_id: userId, id: { $in: [...open.keys()] } })) {
          if (source.status === 'processing' || !open.has(source.id)) continue;
          status.set(source.id, source);
          settle(source, open.get(source.id)!);
          open.delete(source.id);
        }
        refreshed.wake();
      }
      if (failures.length > 0) break;
      progress.show(settledFiles, failedFiles);
      if (acceptedCount === files.length && open.size === 0) break;
      await settledHere.wait(POLL_MS);
    }
    await accepting;
    if (failures.length > 0) throw failures[0];
    progress.finish();
    const sources = accepted.map((source, index) => {
      const settled = status.get(source!.id)!;
      return { file: files[index]!, source_id: settled.id, status: settled.status, activity_ids: settled.activity_ids, error: settled.error };
    });
    return {
      files: files.length,
      processed: sources.filter((source) => source.status === 'processed').length,
      failed: sources.filter((source) => source.status === 'failed').length,
      activities: sources.reduce((total, source) => total + source.activity_ids.length, 0),
      sources,
    };
  } finally {
    await runner.close();
  }
}

/** A tiny CSV ride: decoding it once per thread loads the workers' modules before the first file arrives. */
const WARM_CSV = 'timestamp,sport,power\n2024-01-01T00:00:00Z,cycling,100\n2024-01-01T00:00:01Z,cycling,110\n';

async function warm(pool: EnginePool, threads: number): Promise<void> {
  await Promise.allSettled(Array.from({ length: threads }, () => {
    const bytes = new TextEncoder().encode(WARM_CSV).buffer as ArrayBuffer;
    return pool.run('decodeFile', { bytes, type: 'csv' }, { transferList: [bytes] });
  }));
}

/** Wakes whoever waits, or lets them go after a bound. */
class Wakeup {
  private waiters: (() => void)[] = [];

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.push(done);
    });
  }
}

/** FIT and CSV files under `entry` (itself when it is a file), sorted. */
async function collect(entry: string): Promise<string[]> {
  const info = await stat(entry).catch(() => null);
  if (!info) throw new Error(`${entry} does not exist`);
  if (info.isFile()) return [entry];
  const found: string[] = [];
  for (const child of (await readdir(entry, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(entry, child.name);
    if (child.isDirectory()) found.push(...(await collect(full)));
    else if (child.isFile() && EXTENSIONS.has(path.extname(child.name).toLowerCase())) found.push(full);
  }
  return found;
}

class Progress {
  private lastDecile = -1;
  private readonly tty = process.stderr.isTTY === true;

  constructor(private readonly total: number) {}

  show(done: number, failed: number): void {
    const fraction = this.total === 0 ? 1 : done / this.total;
    const text = `${done}/${this.total} files settled (${failed} failed)`;
    if (this.tty) {
      const width = 30;
      const filled = Math.round(fraction * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
    } else if (Math.floor(fraction * 10) > this.lastDecile) {
      this.lastDecile = Math.floor(fraction * 10);
      process.stderr.write(`import: ${text}\n`);
    }
  }

  finish(): void {
    if (this.tty) process.stderr.write('\n');
  }
}
