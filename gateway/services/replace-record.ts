/**
 * A PUT that replaces a whole record, conditional on the version it was read at (`updated_at`), so a
 * concurrent write — an app's metadata, another PUT — is never silently overwritten: the loser gets a 409
 * to retry. Used by traces and tests.
 */
import type { Collection, Filter } from '../../storage/store.js';
import { recordKey } from '../../storage/shard-keys.js';
import { HttpError } from '../errors.js';

interface Versioned {
  id: string;
  user_id: string;
  updated_at: number;
}

export async function replaceRecord<T extends Versioned>(collection: Collection<T>, existing: T, record: T): Promise<void> {
  // The id and the owner stay: the filter names both, and a change may not move a record between users.
  const { id: _id, user_id: _owner, ...fields } = record;
  const updated = await collection.updateOne({ ...recordKey(existing), updated_at: existing.updated_at } as Filter<T>, { set: fields as Partial<T> });
  if (!updated) throw new HttpError(409, 'the record changed while it was replaced; retry', { code: 'conflict' });
}
