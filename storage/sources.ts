/**
 * Accepting a file as a source — shared by the upload endpoint, `threshold import` and provider imports
 * (engine/integrations), which is why it lives beside the store rather than in the gateway.
 * The original bytes are stored first, then the source record and its ingest job land in one atomic
 * batch, so an accepted source always has a job and a crash before that leaves nothing visible. The
 * same bytes uploaded again by the same user are recognised by their SHA-256 and answered with the
 * existing source (a failed one is queued again: the decoder may have improved). The listings the API
 * and the upload page read are in gateway/services/sources.ts.
 */
import { createHash } from 'node:crypto';
import type { SourceRecord, Store } from './store.js';
import { DuplicateKeyError } from './store.js';
import { newId } from './ids.js';
import { ingestJob } from './jobs.js';

export interface IncomingFile {
  filename: string | null;
  bytes: Uint8Array;
}

export interface AcceptOptions {
  origin?: SourceRecord['origin'];
  applicationId?: string | null;
  /** A provider import's `<provider>:<activity id>`: a second import of it answers the first source. */
  externalId?: string | null;
  now?: number;
}

const FIT_SIGNATURE = '.FIT';

/** fit when the bytes carry a FIT header, csv when they are text, null otherwise. */
export function sourceType(file: IncomingFile): SourceRecord['type'] {
  const { bytes } = file;
  if (bytes.length >= 12 && (bytes[0] === 12 || bytes[0] === 14) && Buffer.from(bytes.subarray(8, 12)).toString('latin1') === FIT_SIGNATURE) return 'fit';
  if (file.filename?.toLowerCase().endsWith('.fit')) return 'fit'; // a damaged FIT file: let the decoder say what is wrong
  if (!bytes.subarray(0, 4096).includes(0)) return 'csv';
  return null;
}

export async function acceptSource(store: Store, userId: string, file: IncomingFile, options: AcceptOptions = {}): Promise<SourceRecord> {
  const now = options.now ?? Date.now();
  const id = newId();
  const source: SourceRecord = {
    id,
    user_id: userId,
    type: sourceType(file),
    origin: options.origin ?? 'manual_upload',
    filename: file.filename,
    content_hash: createHash('sha256').update(file.bytes).digest('hex'),
    size: file.bytes.length,
    status: 'processing',
    activity_ids: [],
    error: null,
    warnings: [],
    bytes_key: `source:${id}`,
    application_id: options.applicationId ?? null,
    ...(options.externalId ? { external_id: options.externalId } : {}),
    created_at: now,
    updated_at: now,
  };
  await store.blobs.put(source.bytes_key, file.bytes, { userId });
  try {
    await store.batch([{ collection: 'sources', insert: source }, { collection: 'jobs', insert: ingestJob(userId, id, now) }]);
    return source;
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    await store.blobs.delete(source.bytes_key);
    const existing = (options.externalId ? await store.sources.findOne({ user_id: userId, external_id: options.externalId }) : null)
      ?? await store.sources.findOne({ user_id: userId, content_hash: source.content_hash });
    if (!existing) throw error;
    return existing.status === 'failed' ? requeue(store, existing, now) : existing;
  }
}

/** Puts a failed source back to processing and its job back in the queue. */
async function requeue(store: Store, source: SourceRecord, now: number): Promise<SourceRecord> {
  const reopened = await store.sources.updateOne({ id: source.id, user_id: source.user_id, status: 'failed' }, { set: { status: 'processing', error: null, updated_at: now } });
  if (!reopened) return (await store.sources.findOne({ id: source.id, user_id: source.user_id })) ?? source;
  const job = await store.jobs.updateOne(
    { key: `ingest:${source.id}`, status: { $in: ['done', 'failed'] } },
    { set: { status: 'queued', attempts: 0, run_after: now, error: null, lease_owner: null, lease_until: null, updated_at: now } },
  );
  if (!job) await store.jobs.insertIfAbsent(ingestJob(source.user_id, source.id, now), ['key']);
  return reopened;
}
