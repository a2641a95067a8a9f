/**
 * Question: how many bytes does an hour of activity take at rest, before and after blob compression
 * (storage/blob-codec.ts), and what does compressing and decoding cost per hour? Measured on the FIT
 * corpus (the copies in test/fixtures/fit, plus the GPL folder from ../shared/data/fit when present)
 * ingested through the real path (acceptSource stores the original, the pool decodes, ingest stores the
 * series and the analysis cache) into a SQLite store, then read back from the blob table by kind:
 * series (Arrow IPC), originals (the uploaded files), analysis caches.
 *
 * For each kind: bytes per hour of activity as put and as stored (the ratio), Brotli's encode and decode
 * time per hour of activity (the codec's own functions, one blob after another, on libuv's thread pool as
 * in the store), and the reference measured in the same run: deflate level 6 (zlib's default, what gzip
 * does) on the same bytes, its ratio and its decode time. Decode is what every series read pays.
 *
 * Rows: per kind, Brotli's compression against deflate-6's, and the series' decode time per hour against
 * inflate's (the read every analysis pays).
 *
 *   npm run bench -- blob-compression
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { openStore } from '../storage/open-store.js';
import { decodeBlob, encodeBlob } from '../storage/blob-codec.js';
import { createPool } from '../engine/pool/pool.js';
import { corpusFitFiles, ingestAll, tempDir } from './support.js';
import { share, type BenchResult, type BenchRow } from './results.js';

export const question = 'Blobs at rest: stored bytes per hour of activity before and after compression, and the encode and decode cost (corpus)';

const deflate = promisify(zlib.deflateRaw);
const inflate = promisify(zlib.inflateRaw);

/** Blob kinds by key prefix (engine/service/ingest-source.ts, analysis-cache.ts, storage/sources.ts). */
const KINDS = [['series', 'series:'], ['originals', 'source:'], ['analysis caches', 'analysis:']] as const;

interface Row {
  key: string;
  bytes: Buffer;
  encoding: string;
  size: number;
}

/** The fastest of three passes, in ms (the machine is shared: the minimum is the least disturbed). */
async function timed(work: () => Promise<void>): Promise<number> {
  let best = Infinity;
  for (let pass = 0; pass < 3; pass++) {
    const started = performance.now();
    await work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** One blob after another: the per-blob latency a reader sees, summed. */
async function each<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  for (const item of items) await work(item);
}

async function measure(label: string, rows: Row[], hours: number, out: BenchRow[]): Promise<string> {
  const raw = await Promise.all(rows.map((row) => decodeBlob(row.key, row)));
  const put = raw.reduce((sum, bytes) => sum + bytes.byteLength, 0);
  const stored = rows.reduce((sum, row) => sum + row.bytes.byteLength, 0);
  const compressed = rows.filter((row) => row.encoding === 'br').length;
  const deflated = await Promise.all(raw.map((bytes) => deflate(bytes, { level: 6 })));
  const deflatedBytes = deflated.reduce((sum, bytes) => sum + bytes.byteLength, 0);
  const encodeMs = await timed(() => each(raw, (bytes) => encodeBlob(bytes)));
  const decodeMs = await timed(() => each(rows, (row) => decodeBlob(row.key, row)));
  const inflateMs = await timed(() => each(deflated, (bytes) => inflate(bytes)));
  const kb = (bytes: number) => `${(bytes / 1024 / hours).toFixed(1)} KB`;
  const perHour = (ms: number) => `${(ms / hours).toFixed(2)} ms`;
  out.push({
    question: `${label} at rest, compression`, dataset: 'corpus', figure: put / stored, unit: '×',
    anchor: put / deflatedBytes, anchorLabel: 'deflate-6 on the same bytes', ratio: share(put / stored, put / deflatedBytes, 'higher'),
  });
  if (label === 'series') {
    out.push({
      question: 'series decode per hour of activity', dataset: 'corpus', figure: decodeMs / hours, unit: 'ms',
      anchor: inflateMs / hours, anchorLabel: 'inflate of deflate-6', ratio: share(decodeMs / hours, inflateMs / hours, 'lower'),
    });
  }
  return `${label}: ${kb(put)} → ${kb(stored)} per hour = ${(put / stored).toFixed(2)}× (${compressed}/${rows.length} blobs compressed); ` +
    `encode ${perHour(encodeMs)}, decode ${perHour(decodeMs)} per hour; ` +
    `reference deflate-6: ${(put / deflatedBytes).toFixed(2)}×, decode ${perHour(inflateMs)} per hour`;
}

export async function run(): Promise<BenchResult> {
  const dir = tempDir();
  const file = path.join(dir, 'bench.sqlite');
  const store = await openStore({ mongodbUri: null, sqliteFile: file });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  let hours: number;
  let files: number;
  try {
    const corpus = corpusFitFiles().map((name) => ({ filename: path.basename(name), bytes: readFileSync(name) }));
    files = corpus.length;
    hours = (await ingestAll(store, pool, threads, corpus)).hours;
  } finally {
    await pool.destroy();
    await store.close();
  }
  const db = new Database(file, { readonly: true });
  try {
    const lines = [`corpus: ${files} files, ${hours.toFixed(1)} h of activity`];
    const benchRows: BenchRow[] = [];
    let put = 0;
    let stored = 0;
    for (const [label, prefix] of KINDS) {
      const rows = db.prepare('SELECT key, bytes, encoding, coalesce(size, length(bytes)) AS size FROM blobs WHERE substr(key, 1, length(?)) = ?')
        .all(prefix, prefix) as Row[];
      put += rows.reduce((sum, row) => sum + row.size, 0);
      stored += rows.reduce((sum, row) => sum + row.bytes.byteLength, 0);
      lines.push(await measure(label, rows, hours, benchRows));
    }
    lines.push(`all blobs: ${(put / 1024 / hours).toFixed(1)} KB → ${(stored / 1024 / hours).toFixed(1)} KB per hour = ${(put / stored).toFixed(2)}×`);
    return { text: lines.join('\n  '), rows: benchRows };
  } finally {
    db.close();
  }
}
