/**
 * App metadata (interface §2 "App metadata"): each app keeps one free JSON object per activity,
 * trace, test and user. Writing replaces the app's whole object, never another app's; limits per
 * §8: at most `maxBytes` of JSON (413) and 32 levels of nesting (422).
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { AppMetadata, Collection, JsonObject } from '../../storage/store.js';
import { ForbiddenError, HttpError, ValidationError } from '../errors.js';
import { recordKey } from '../../storage/shard-keys.js';

export const MAX_METADATA_DEPTH = 32;

export const AppMetadataBody = named('AppMetadata', z.record(z.string(), z.unknown()).meta({ description: 'Free JSON object' }));

export interface WithMetadata {
  id: string;
  /** The owner, on user-owned records (a collection sharded by user is filtered by it). */
  user_id?: string;
  app_metadata: AppMetadata;
  /** The condition of each write; a record written before it existed (a user) has none yet. */
  updated_at?: number;
}

/** "Only an app token may read or write it": the token's application id, else 403. */
export function requireAppToken(principal: { applicationId: string | null }): string {
  if (!principal.applicationId) throw new ForbiddenError('App metadata needs an application access token');
  return principal.applicationId;
}

/** Sets (or with `value` null, removes) the app's entry; returns what is stored for the app. */
export async function putAppMetadata<T extends WithMetadata>(
  collection: Collection<T>,
  record: T,
  applicationId: string,
  value: unknown,
  limits: { maxBytes: number },
): Promise<JsonObject | null> {
  if (value !== null) checkMetadata(value, limits.maxBytes);
  let current: T | null = record;
  for (let attempt = 0; attempt < 20 && current; attempt++) {
    const metadata: AppMetadata = { ...current.app_metadata };
    if (value === null) delete metadata[applicationId];
    else metadata[applicationId] = value as JsonObject;
    const updated = await collection.updateOne(
      { ...recordKey(current), updated_at: current.updated_at ?? null } as never,
      { set: { app_metadata: metadata, updated_at: Math.max(Date.now(), (current.updated_at ?? 0) + 1) } as Partial<T> },
    );
    if (updated) return value === null ? null : (value as JsonObject);
    current = await collection.findOne(recordKey(record) as never);
  }
  throw new HttpError(409, 'the record changed while its metadata was written; retry', { code: 'conflict' });
}

function checkMetadata(value: unknown, maxBytes: number): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ValidationError.single(['body'], 'app metadata must be a JSON object', 'dict_type');
  }
  if (depth(value) > MAX_METADATA_DEPTH) {
    throw ValidationError.single(['body'], `app metadata is nested deeper than ${MAX_METADATA_DEPTH} levels`, 'too_deep');
  }
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > maxBytes) throw new HttpError(413, `app metadata is ${bytes} bytes; the limit is ${maxBytes}`, { code: 'metadata_too_large' });
}

/** Nesting depth of a JSON value (an object or array counts one level), without recursion. */
function depth(root: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, level] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, level);
    if (deepest > MAX_METADATA_DEPTH) return deepest;
    for (const child of Object.values(value)) stack.push([child, level + 1]);
  }
  return deepest;
}
