/**
 * `threshold import --user USER_ID PATH…`: bulk import of FIT and CSV files (files or folders, walked
 * recursively) through the same ingest path as uploads: each file becomes a source with its ingest
 * job, and a job runner in this process (beside any running service: the queue is shared through the
 * store, jobs are leased) works the queue until every imported source is processed or failed.
 * Progress goes to stderr (a bar on a terminal, a line per 10 % otherwise); the summary is JSON.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../domain/logger.js';
import type { SourceRecord, Store } from '../storage/store.js';
import { INGEST_JOB } from '../storage/jobs.js';
import { loadEngineConfig } from '../engine/config.js';
import { createPool } from '../engine/pool/pool.js';
import { startJobRunner } from '../engine/jobs/runner.js';
import { ingestJobHandler } from '../engine/jobs/ingest-job.js';
import { acceptSource } from '../storage/sources.js';
import { cleanFilename } from '../gateway/multipart.js';

const EXTENSIONS = new Set(['.fit', '.csv']);
const POLL_MS = 100;

export interface ImportSummary {
  files: number;
  processed: number;
  failed: number;
  activities: number;
  sources: { file: string; source_id: string; status: SourceRecord['status']; activity_ids: string[]; error: SourceRecord['error'] }[];
}

export async function importFiles(store: Store, env: Record<string, string | undefined>, userId: string, paths: string[], maxFileBytes: number): Promise<ImportSummary> {
  if (!(await store.users.get(userId))) throw new Error(`user ${userId} does not exist`);
  const files = (await Promise.all(paths.map((entry) => collect(path.resolve(entry))))).flat();
  const accepted: { file: string; source: SourceRecord }[] = [];
  for (const file of files) {
    const size = (await stat(file)).size;
    if (size > maxFileBytes) throw new Error(`${file} is larger than MAX_UPLOAD_BYTES (${maxFileBytes} bytes)`);
    accepted.push({ file, source: await acceptSource(store, userId, { filename: cleanFilename(file), bytes: await readFile(file) }) });
  }

  const engine = loadEngineConfig(env);
  const pool = createPool({ threads: engine.engineThreads });
  const runner = startJobRunner({
    store,
    logger: createLogger({ level: 'silent', name: 'import' }),
    handlers: { [INGEST_JOB]: ingestJobHandler({ store, pool }) },
    concurrency: engine.engineThreads,
    leaseMs: engine.jobLeaseMs,
    pollMs: POLL_MS,
  });
  const progress = new Progress(accepted.length);
  try {
    let settled: SourceRecord[] = [];
    for (;;) {
      settled = await Promise.all(accepted.map(async ({ source }) => (await store.sources.findOne({ id: source.id, user_id: source.user_id })) ?? source));
      const done = settled.filter((source) => source.status !== 'processing');
      progress.show(done.length, done.filter((source) => source.status === 'failed').length);
      if (done.length === settled.length) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    progress.finish();
    const sources = settled.map((source, index) => ({
      file: accepted[index]!.file, source_id: source.id, status: source.status, activity_ids: source.activity_ids, error: source.error,
    }));
    return {
      files: files.length,
      processed: sources.filter((source) => source.status === 'processed').length,
      failed: sources.filter((source) => source.status === 'failed').length,
      activities: sources.reduce((total, source) => total + source.activity_ids.length, 0),
      sources,
    };
  } finally {
    await runner.close();
    await pool.destroy();
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
